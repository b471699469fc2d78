/**
 * Writes `fixtures/codex/`: rollouts the real Codex CLI wrote in the
 * scenarios below, as the Stop hook saw them (a copy made when the hook
 * started) or as Codex left them, and beside each the Stop payloads it
 * sent (`<name>.stops.json`: payload, the capture hook's exit code and
 * stderr). Temp paths become `<WORK>`; strings over 2,000 characters are
 * cut in lines that are not the conversation (the session's instructions,
 * its world state, developer messages); everything else, line count and
 * order included, is as Codex wrote it.
 *
 * Run: `deno task fixtures:codex [name...]` (every capture, or those
 * named; installs the pinned release, see `support/codex_install.ts`).
 *
 * @module
 */

import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { CODEX_RELEASE, findOrInstallCodex } from "./support/codex_install.ts";
import {
  customCall,
  empty,
  execCall,
  mcpCall,
  queue,
  type Script,
  text,
} from "./support/fake_responses.ts";
import {
  blockOnceHook,
  type CodexSession,
  type StopRun,
  withCodexSession,
} from "./support/codex_session.ts";

const OUT = fileURLToPath(new URL("../../fixtures/codex/", import.meta.url));

const MCP_STUB = fileURLToPath(
  new URL("../claude_code/support/mcp_stub.ts", import.meta.url),
);

/** `$CODEX_HOME/config.toml` lines that start the stub MCP server. */
function mcpConfig(): string {
  return [
    "[mcp_servers.stub]",
    `command = ${JSON.stringify(Deno.execPath())}`,
    `args = ${JSON.stringify(["run", "--quiet", "--no-prompt", MCP_STUB])}`,
  ].join("\n");
}

/** Strings longer than this in non-conversation lines are cut. */
const CUT_AT = 2000;

/** What a capture keeps: a rollout and the Stop runs up to then. */
interface Captured {
  rollout: string | null;
  stops: StopRun[];
}

interface Capture {
  name: string;
  /** What it shows (fixtures/codex/README.md repeats it). */
  shows: string;
  script: Script;
  /** The inner Stop hook (default: allow every stop). */
  stopHook?: string;
  /** Configure the stub MCP server as `stub`. */
  mcp?: true;
  /** Runs the scenario and picks what to keep. */
  run(session: CodexSession): Promise<Captured>;
}

/** The rollout as the Stop hook's `n`-th run (0-based) saw it. */
async function atStop(session: CodexSession, n: number): Promise<Captured> {
  const stops = await session.stopRuns();
  const stop = stops[n];
  if (stop === undefined) {
    throw new Error(`no Stop run #${n + 1} (saw ${stops.length})`);
  }
  return { rollout: stop.rolloutAtStart, stops: stops.slice(0, n + 1) };
}

/** The one rollout as Codex left it, and every Stop run. */
async function atEnd(session: CodexSession): Promise<Captured> {
  const [rollout, ...more] = await session.rollouts();
  if (rollout === undefined || more.length > 0) {
    throw new Error(`expected one rollout, found ${more.length + 1}`);
  }
  return {
    rollout: await Deno.readTextFile(rollout),
    stops: await session.stopRuns(),
  };
}

/** Whether the session's rollout holds a line containing `marker`. */
async function onFile(session: CodexSession, marker: string): Promise<boolean> {
  const [rollout] = await session.rollouts();
  return rollout !== undefined &&
    (await Deno.readTextFile(rollout)).includes(marker);
}

/** The id of the session's only rollout (its file name's end). */
async function sessionId(session: CodexSession): Promise<string> {
  const [rollout] = await session.rollouts();
  const id = rollout?.match(/-([0-9a-f]{8}-[0-9a-f-]{27})\.jsonl$/)?.[1];
  if (id === undefined) throw new Error(`no session id in ${rollout}`);
  return id;
}

/** Asserts a run ended by itself with exit 0. */
function ok(run: { code: number | null; stderr: string }): void {
  if (run.code !== 0) {
    throw new Error(`codex exited ${run.code}: ${run.stderr.slice(-500)}`);
  }
}

const CAPTURES: Capture[] = [
  {
    name: "codex_healthy_call_then_text.jsonl",
    shows: "A healthy turn: an `exec_command` call, its output, then a text " +
      "answer (at Stop).",
    script: queue([execCall("echo hello"), text("All done: it said hello.")]),
    run: async (s) => {
      ok(await s.runExec("run echo hello"));
      return atStop(s, 0);
    },
  },
  {
    name: "codex_call_then_empty_reply.jsonl",
    shows: "A call answered with output, then a reply with no output item: " +
      "the model never followed up (at Stop, `last_assistant_message` null).",
    script: queue([execCall("echo hello"), empty()]),
    run: async (s) => {
      ok(await s.runExec("run echo hello"));
      return atStop(s, 0);
    },
  },
  {
    name: "codex_empty_exec_output_no_reply.jsonl",
    shows: "`exec_command` of `true`: nothing after the output's `Output:` " +
      "header, and no reply (at Stop).",
    script: queue([execCall("true"), empty()]),
    run: async (s) => {
      ok(await s.runExec("run true"));
      return atStop(s, 0);
    },
  },
  {
    name: "codex_empty_exec_output_answered.jsonl",
    shows: "The same empty output, answered with text (at Stop).",
    script: queue([
      execCall("true"),
      text("The command printed nothing, as expected."),
    ]),
    run: async (s) => {
      ok(await s.runExec("run true"));
      return atStop(s, 0);
    },
  },
  {
    name: "codex_announced_then_stopped.jsonl",
    shows: "A call answered, then the model announces more work and ends " +
      "the turn without a call (at Stop).",
    script: queue([
      execCall("ls -a", "Looking at the folder first."),
      text("The folder is empty. Let me run the tests now."),
    ]),
    run: async (s) => {
      ok(await s.runExec("run the tests"));
      return atStop(s, 0);
    },
  },
  {
    name: "codex_blocked_then_answered.jsonl",
    shows: "A call, no reply, a Stop hook blocking with exit 2: the reason " +
      "comes back as a `<hook_prompt>` user message in the same turn, the " +
      "model answers, the re-stop has `stop_hook_active` (at the second " +
      "Stop).",
    script: queue([
      execCall("echo hello"),
      empty(),
      text("The command said hello; that is all it printed."),
    ]),
    stopHook: blockOnceHook(
      "stall-watch: the exec_command result was never answered: answer it.",
    ),
    run: async (s) => {
      ok(await s.runExec("run echo hello"));
      return atStop(s, 1);
    },
  },
  {
    name: "codex_blocked_then_answered_end.jsonl",
    shows: "The same session as Codex left it: `task_complete` after the " +
      "second Stop.",
    script: queue([
      execCall("echo hello"),
      empty(),
      text("The command said hello; that is all it printed."),
    ]),
    stopHook: blockOnceHook(
      "stall-watch: the exec_command result was never answered: answer it.",
    ),
    run: async (s) => {
      ok(await s.runExec("run echo hello"));
      return atEnd(s);
    },
  },
  {
    name: "codex_ephemeral_call_then_empty_reply.jsonl",
    shows: "`codex exec --ephemeral`: no rollout (none is kept here); the " +
      "Stop payload's `transcript_path` is null.",
    script: queue([execCall("echo hello"), empty()]),
    run: async (s) => {
      ok(await s.runExec("run echo hello", { ephemeral: true }));
      const stops = await s.stopRuns();
      if ((await s.rollouts()).length > 0) {
        throw new Error("--ephemeral wrote a rollout");
      }
      return { rollout: "", stops };
    },
  },
  {
    name: "codex_custom_tool_call_then_empty_reply.jsonl",
    shows: "A freeform `apply_patch` call (`custom_tool_call`, offered to " +
      "model gpt-5.5), its `custom_tool_call_output`, then no reply (at " +
      "Stop).",
    script: queue([
      customCall(
        "apply_patch",
        "*** Begin Patch\n*** Add File: hello.txt\n+hello\n*** End Patch\n",
      ),
      empty(),
    ]),
    run: async (s) => {
      ok(await s.runExec("add hello.txt", { args: ["-m", "gpt-5.5"] }));
      return atStop(s, 0);
    },
  },
  {
    name: "codex_interrupted_during_call.jsonl",
    shows: "SIGINT (Ctrl-C) while `sleep 30` runs: the call's output " +
      "`aborted by user`, an injected `<turn_aborted>` user message, " +
      "`turn_aborted`; no Stop hook runs (as Codex left it).",
    script: queue([execCall("sleep 30")]),
    run: async (s) => {
      let calledAt = 0;
      const run = await s.runExec("run sleep 30", {
        interruptWhen: async () => {
          if (calledAt === 0 && await onFile(s, '"type":"function_call"')) {
            calledAt = Date.now();
          }
          return calledAt > 0 && Date.now() - calledAt > 1_000;
        },
      });
      if (run.timedOut) throw new Error("the interrupted run never ended");
      return atEnd(s);
    },
  },
  {
    name: "codex_killed_during_call_resumed.jsonl",
    shows: "codex killed (SIGKILL) while `sleep 30` runs, then `codex exec " +
      "resume <id>`: the first turn keeps its call without output and has " +
      "no `task_complete` (Codex sends the model an `aborted` output it " +
      "never writes); the resumed turn is answered (as Codex left it).",
    script: queue([execCall("sleep 30"), text("Picked up after the crash.")]),
    run: async (s) => {
      await s.runExec("run sleep 30", {
        killWhen: () => onFile(s, '"type":"function_call"'),
      });
      ok(await s.runExec("carry on", { resume: await sessionId(s) }));
      return atEnd(s);
    },
  },
  {
    name: "codex_stalled_turn_then_healthy_turn.jsonl",
    shows: "Two turns of one session: the first stalls after its call's " +
      "output, the second (`codex exec resume <id>`) is answered (at the " +
      "second Stop).",
    script: queue([
      execCall("echo first"),
      empty(),
      text("Second turn answered."),
    ]),
    run: async (s) => {
      ok(await s.runExec("run echo first"));
      ok(await s.runExec("and now?", { resume: await sessionId(s) }));
      return atStop(s, 1);
    },
  },
  {
    name: "codex_mcp_empty_result_no_reply.jsonl",
    shows: "An MCP call (`namespace` `mcp__stub`, `name` `empty`) whose " +
      "output is a content array with nothing after `Output:`, and no " +
      "reply (at Stop).",
    script: queue([mcpCall("stub", "empty"), empty()]),
    mcp: true,
    run: async (s) => {
      ok(await s.runExec("use the stub"));
      return atStop(s, 0);
    },
  },
  {
    name: "codex_mcp_slow_call_killed.jsonl",
    shows: "An MCP call still running (`slow`, 60 s) when codex is killed: " +
      "the call has no output and the turn no end (as Codex left it).",
    script: queue([mcpCall("stub", "slow", { seconds: 60 })]),
    mcp: true,
    run: async (s) => {
      let calledAt = 0;
      await s.runExec("use the slow stub", {
        killWhen: async () => {
          if (calledAt === 0 && await onFile(s, '"type":"function_call"')) {
            calledAt = Date.now();
          }
          return calledAt > 0 && Date.now() - calledAt > 1_000;
        },
      });
      return atEnd(s);
    },
  },
  {
    name: "codex_partial_output_then_reply.jsonl",
    shows: "A command still running after `yield_time_ms` (250 ms): its " +
      "output says `Process running with session ID ...`, nothing after " +
      "`Output:` yet; the model answers that (at Stop).",
    script: queue([
      execCall("sleep 2; echo late", "", { yield_time_ms: 250 }),
      text("It is still running; I will check on it later."),
    ]),
    run: async (s) => {
      ok(await s.runExec("run the slow command"));
      return atStop(s, 0);
    },
  },
  {
    name: "codex_partial_output_no_reply.jsonl",
    shows: "The same still-running command, and no reply (at Stop).",
    script: queue([
      execCall("sleep 2; echo late", "", { yield_time_ms: 250 }),
      empty(),
    ]),
    run: async (s) => {
      ok(await s.runExec("run the slow command"));
      return atStop(s, 0);
    },
  },
];

function cutStrings(value: unknown): unknown {
  if (typeof value === "string") {
    return value.length > CUT_AT
      ? `${value.slice(0, 200)}…<cut ${value.length - 200} chars>`
      : value;
  }
  if (Array.isArray(value)) return value.map(cutStrings);
  if (value && typeof value === "object") {
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [k, cutStrings(v)]),
    );
  }
  return value;
}

/** Whether a rollout line is the conversation (kept whole). */
function isConversation(line: Record<string, unknown>): boolean {
  const payload = line.payload as Record<string, unknown> | undefined;
  if (line.type !== "response_item" || !payload) return false;
  return !(payload.type === "message" && payload.role === "developer");
}

/** Cuts long strings of lines that are not the conversation. */
function cutLine(line: string): string {
  if (line === "") return line;
  const parsed = JSON.parse(line);
  return isConversation(parsed) ? line : JSON.stringify(cutStrings(parsed));
}

const wanted = new Set(Deno.args);
await Deno.mkdir(OUT, { recursive: true });
const codex = await findOrInstallCodex();
if (!codex) Deno.exit(1);
for (const capture of CAPTURES) {
  if (wanted.size > 0 && !wanted.has(capture.name)) continue;
  await withCodexSession({ codex, script: capture.script }, async (session) => {
    if (capture.stopHook) await session.setStopHook(capture.stopHook);
    if (capture.mcp) await session.addConfig(mcpConfig());
    const { rollout, stops } = await capture.run(session);
    if (rollout === null) throw new Error(`${capture.name}: no rollout`);
    const place = (text: string) => text.replaceAll(session.root, "<WORK>");
    const cut = rollout.split("\n").map(cutLine).join("\n");
    // --ephemeral writes no rollout: only its Stop payloads are kept.
    if (rollout !== "") {
      await Deno.writeTextFile(join(OUT, capture.name), place(cut));
    }
    const stopsJson = stops.map((stop) => ({
      payload: stop.payload,
      code: stop.code,
      stderr: stop.stderr,
    }));
    await Deno.writeTextFile(
      join(OUT, capture.name.replace(/\.jsonl$/, ".stops.json")),
      place(JSON.stringify(stopsJson, null, 2)) + "\n",
    );
    console.log(
      `${capture.name}: ${
        cut.split("\n").length - 1
      } lines, ${stops.length} stop(s) (codex ${CODEX_RELEASE}${
        session.isolated ? ", network namespace" : ""
      })`,
    );
  });
}
