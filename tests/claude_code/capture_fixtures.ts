/**
 * Writes `fixtures/real/`: transcripts real Claude Code releases wrote in
 * the tier's scenarios, as the hook saw them (or, with no hook run, as
 * Claude Code left them). Temp paths become `<WORK>`, the project slug
 * `<PROJECT-SLUG>`, the hook command `<HOOK-COMMAND>`; long strings in
 * metadata and attachment lines are cut; conversation entries, line count
 * and order are kept. Files without a release in their name are from
 * 2.1.332; the others name the release that wrote them.
 *
 * Run: `deno task fixtures:claude [name...]` (all captures, or those named;
 * installs the releases it needs, see `support/claude_install.ts`).
 *
 * @module
 */

import { basename, join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  findOrInstallClaude,
  NEWEST_RELEASE,
} from "./support/claude_install.ts";
import {
  empty,
  httpError,
  queue,
  type Reply,
  type Script,
  text,
  toolCall,
} from "./support/fake_api.ts";
import { type ClaudeSession, withClaudeSession } from "./support/session.ts";

const OUT = fileURLToPath(new URL("../../fixtures/real/", import.meta.url));

/** Strings longer than this in non-conversation lines are cut. */
const CUT_AT = 2000;

interface Capture {
  name: string;
  /** The release that writes it (default the newest). */
  release?: string;
  prompt: string;
  tool: string;
  /** More tools the run may use without asking, besides `tool`. */
  moreTools?: string[];
  script: Script;
  /** Which file: the transcript at the first Stop, or as left at the end. */
  at: "first-stop" | "end";
  /**
   * Kill claude (SIGKILL) once the tool result is on file (or, with
   * `killAt: "call"`, 2 s after the call is, while it runs), then run this
   * prompt with `--continue` in the same project (a crashed session picked
   * up again).
   */
  continueWith?: string;
  /** Once the first run ended, run this prompt with `--continue`. */
  then?: string;
  /** Files to write into the project before the first run. */
  projectFiles?: Record<string, string>;
  /** When to kill before `continueWith` (default `result`). */
  killAt?: "call" | "result";
  /** Hooks registered beside stall-watch's Stop hook (event -> handlers). */
  otherHooks?: Record<string, unknown[]>;
  /**
   * What to write: the main transcript (default); the subagent's file as
   * the session left it (`subagent`); or both in Claude Code's layout
   * (`session`: `<name>/<session>.jsonl` and `<name>/<session>/subagents/
   * agent-<id>.jsonl`), the subagent's call killed 2 s after it is on file.
   */
  files?: "subagent" | "session";
  /** Run with stall-watch switched off (the file ends as the model left it). */
  disabled?: true;
}

/** A hook that ends the turn on purpose, as a policy hook does. */
const POLICY_HOOK = {
  matcher: "*",
  hooks: [{
    type: "command",
    command: `echo '{"continue": false, "stopReason": "policy"}'`,
  }],
};

/** A custom command (`.claude/commands/echo-twice.md`) the model may launch. */
const ECHO_COMMAND = [
  "---",
  "description: Echo the text seven and report it",
  "---",
  "Call mcp__stub__echo with the text seven, then say what it returned.",
  "",
].join("\n");

/** A project skill (`.claude/skills/echo-skill/SKILL.md`). */
const ECHO_SKILL = [
  "---",
  "name: echo-skill",
  "description: Echo the text seven with the stub tool and report it",
  "---",
  "Call mcp__stub__echo with the text seven, then say what it returned.",
  "",
].join("\n");

/**
 * The model launches a command or skill (`launch`), then echoes as it asks
 * and says what came back; the user then types the same, answered alike.
 */
function launchedThenTyped(launch: Reply, what: string): Script {
  const echo = () =>
    toolCall(
      "mcp__stub__echo",
      { text: "seven" },
      `Echoing as the ${what} asks.`,
    );
  return queue([
    launch,
    echo(),
    text(`The ${what}'s echo said seven.`),
    echo(),
    text(`The typed ${what}'s echo said seven.`),
  ]);
}

/** A reply of one text block of `value` (blank ones included). */
function textBlock(value: string): Reply {
  return { kind: "message", blocks: [{ type: "text", text: value }] };
}

/** The subagent's task in the subagent captures. */
const SUBAGENT_TASK = "SUBAGENT-TASK: look at the module and report.";

/** A subagent's full report, written before a last bookkeeping call. */
const SUBAGENT_REPORT = [
  "Report: I looked at the module.",
  "",
  "- The reader splits lines on newlines only and keeps long lines' ends.",
  "- The two directions share their options; the tests cover both.",
  "- Nothing is broken; one comment is out of date, in line_reader.ts.",
  "- Long lines are clipped to their first and last bytes, as the docs say.",
  "- Reads are chunked, and a chunk's buffer is reused from file to file.",
  "",
  "In short: the module works as documented, and needs no change beyond " +
  "that one comment, which I have not touched.",
].join("\n");

/**
 * A session that delegates to one foreground subagent (`Task` or `Agent`,
 * whichever the release offers), whose requests are told apart by its
 * task: `sub` answers them, the main conversation delegates and then ends.
 */
function delegating(sub: Reply[]): Script {
  let subIndex = 0;
  let mainIndex = 0;
  return (request) => {
    const messages = request.body?.messages;
    const first = JSON.stringify(Array.isArray(messages) ? messages[0] : "");
    if (first.includes(SUBAGENT_TASK)) return sub[subIndex++] ?? text("ok");
    const tools = Array.isArray(request.body?.tools) ? request.body.tools : [];
    const agent = tools.some((t) => (t as { name?: unknown })?.name === "Agent")
      ? "Agent"
      : "Task";
    return [
      toolCall(agent, {
        description: "look at the module",
        prompt: SUBAGENT_TASK,
        subagent_type: "general-purpose",
        run_in_background: false,
      }, "Delegating."),
      text("Main: the subagent reported back."),
    ][mainIndex++] ?? text("ok");
  };
}

const CAPTURES: Capture[] = [
  {
    name: "real_empty_mcp_result_no_followup.jsonl",
    prompt: "use mcp__stub__empty",
    tool: "mcp__stub__empty",
    script: queue([toolCall("mcp__stub__empty"), empty(), empty(), text("ok")]),
    at: "first-stop",
  },
  {
    name: "real_blank_mcp_result_no_followup.jsonl",
    prompt: "use mcp__stub__blank",
    tool: "mcp__stub__blank",
    script: queue([toolCall("mcp__stub__blank"), empty(), empty(), text("ok")]),
    at: "first-stop",
  },
  {
    name: "real_long_error_result_answered.jsonl",
    prompt: "use mcp__stub__fail",
    tool: "mcp__stub__fail",
    script: queue([
      toolCall("mcp__stub__fail", { size: 70 * 1024, char: "\u001b" }),
      text("The tool failed; here is what it said."),
      text("ok"),
    ]),
    at: "first-stop",
  },
  {
    name: "real_api_error_after_tool_result.jsonl",
    prompt: "use mcp__stub__echo",
    tool: "mcp__stub__echo",
    script: queue([
      toolCall("mcp__stub__echo", { text: "forty-two" }),
      httpError(500),
      httpError(500),
    ]),
    at: "end",
  },
  {
    name: "real_no_content_after_whitespace_reply_2.0.76.jsonl",
    release: "2.0.76",
    prompt: "use mcp__stub__echo",
    tool: "mcp__stub__echo",
    script: queue([
      toolCall("mcp__stub__echo", { text: "forty-two" }),
      textBlock("\n\n  \n"),
      text("ok"),
    ]),
    at: "first-stop",
  },
  {
    name: "real_blank_mcp_result_then_empty_text_reply_2.0.76.jsonl",
    release: "2.0.76",
    prompt: "use mcp__stub__blank",
    tool: "mcp__stub__blank",
    script: queue([toolCall("mcp__stub__blank"), textBlock(""), text("ok")]),
    at: "first-stop",
  },
  {
    name: "real_lost_tool_call_2.0.76.jsonl",
    release: "2.0.76",
    prompt: "use mcp__stub__echo",
    tool: "mcp__stub__echo",
    script: queue([
      {
        kind: "message",
        blocks: [{ type: "text", text: "Let me call the tool." }],
        stopReason: "tool_use",
      },
      text("ok"),
    ]),
    at: "first-stop",
  },
  {
    name: "real_api_error_after_tool_result_2.0.76.jsonl",
    release: "2.0.76",
    prompt: "use mcp__stub__echo",
    tool: "mcp__stub__echo",
    // Every request after the call fails, however often Claude Code retries.
    script: (_request, index) =>
      index === 0
        ? toolCall("mcp__stub__echo", { text: "forty-two" })
        : httpError(500),
    at: "end",
  },
  {
    name: "real_no_response_requested_after_killed_turn.jsonl",
    prompt: "use mcp__stub__echo",
    tool: "mcp__stub__echo",
    script: (() => {
      let n = 0;
      return () => {
        n++;
        if (n === 1) return toolCall("mcp__stub__echo", { text: "forty-two" });
        // Never comes: claude is killed while it waits.
        if (n === 2) return { ...textBlock("late"), delayMs: 60_000 };
        return text("Continued after the crash.");
      };
    })(),
    at: "end",
    continueWith: "what did the tool say?",
  },
  ...["2.1.332", "2.0.76"].map((release): Capture => ({
    // A custom slash command the user types: Claude Code writes the command
    // line, then its expanded prompt (isMeta), and the model answers it.
    name: `real_custom_command_turn_${release}.jsonl`,
    release,
    prompt: "use mcp__stub__echo",
    tool: "mcp__stub__echo",
    script: queue([
      toolCall("mcp__stub__echo", { text: "forty-two" }),
      text("The tool said forty-two."),
      toolCall(
        "mcp__stub__echo",
        { text: "seven" },
        "Echoing as the command asks.",
      ),
      text("The command's echo said seven."),
    ]),
    at: "end",
    then: "/echo-twice",
    projectFiles: {
      ".claude/commands/echo-twice.md":
        "Call mcp__stub__echo with the text seven, then say what it returned.\n",
    },
  })),
  {
    // The model launches a custom command with the SlashCommand tool (1.0.x
    // to 2.0.72; 2.0.73 folded it into Skill): its result, the command's
    // line, its expansion, then the model carries on in the same turn. The
    // user then types the same command: that one opens a turn.
    name: "real_slash_command_tool_2.0.72.jsonl",
    release: "2.0.72",
    prompt: "run the echo-twice command",
    tool: "SlashCommand",
    moreTools: ["mcp__stub__echo"],
    script: launchedThenTyped(
      toolCall("SlashCommand", { command: "/echo-twice" }),
      "command",
    ),
    at: "end",
    then: "/echo-twice",
    projectFiles: {
      ".claude/commands/echo-twice.md": ECHO_COMMAND,
    },
  },
  ...["2.1.332", "2.0.76"].map((release): Capture => ({
    // The model loads a project skill with the Skill tool: its result
    // ("Launching skill: ..."), the skill's text (isMeta), and the model
    // carries on in the same turn. The user then invokes the same skill by
    // typing its name: that one opens a turn.
    name: `real_skill_tool_${release}.jsonl`,
    release,
    prompt: "use the echo-skill skill",
    tool: "Skill",
    moreTools: ["mcp__stub__echo"],
    script: launchedThenTyped(
      toolCall("Skill", { skill: "echo-skill" }),
      "skill",
    ),
    at: "end",
    then: "/echo-skill",
    projectFiles: {
      ".claude/skills/echo-skill/SKILL.md": ECHO_SKILL,
    },
  })),
  ...["2.1.332", "2.0.76"].map((release): Capture => ({
    // A local command the user types (`/context`): Claude Code writes its
    // records and queries nothing, so it opens no turn.
    name: `real_local_command_${release}.jsonl`,
    release,
    prompt: "use mcp__stub__echo",
    tool: "mcp__stub__echo",
    script: queue([
      toolCall("mcp__stub__echo", { text: "forty-two" }),
      text("The tool said forty-two."),
    ]),
    at: "end",
    then: "/context",
  })),
  {
    // The watcher race of 2.1.145 (its PostToolUse hook starts before the
    // call's lines are on file) is rebuilt from this file's lines.
    name: "real_echo_then_api_error_2.1.145.jsonl",
    release: "2.1.145",
    prompt: "use mcp__stub__echo",
    tool: "mcp__stub__echo",
    script: (_request, index) =>
      index === 0
        ? toolCall("mcp__stub__echo", { text: "forty-two" })
        : httpError(500),
    at: "end",
  },
  {
    name: "real_hook_stopped_post_tool_use.jsonl",
    prompt: "use mcp__stub__echo",
    tool: "mcp__stub__echo",
    script: queue([toolCall("mcp__stub__echo", { text: "forty-two" })]),
    at: "end",
    otherHooks: { PostToolUse: [POLICY_HOOK] },
  },
  {
    name: "real_hook_stopped_pre_tool_use_2.1.145.jsonl",
    release: "2.1.145",
    prompt: "use mcp__stub__echo",
    tool: "mcp__stub__echo",
    script: queue([toolCall("mcp__stub__echo", { text: "forty-two" })]),
    at: "end",
    otherHooks: { PreToolUse: [POLICY_HOOK] },
  },
  {
    // Before 2.1.97 nothing on file says a hook ended the turn.
    name: "real_hook_stopped_post_tool_use_2.1.90.jsonl",
    release: "2.1.90",
    prompt: "use mcp__stub__echo",
    tool: "mcp__stub__echo",
    script: queue([toolCall("mcp__stub__echo", { text: "forty-two" })]),
    at: "end",
    otherHooks: { PostToolUse: [POLICY_HOOK] },
  },
  {
    // From 2.1.281 a call cut short by a crash gets Claude Code's
    // "[Tool call interrupted: ...]" result on resume; here the resumed
    // model stays silent (twice: Claude Code retries an empty reply).
    name: "real_crashed_call_resumed_silent.jsonl",
    prompt: "use mcp__stub__slow",
    tool: "mcp__stub__slow",
    script: queue([
      toolCall("mcp__stub__slow", { seconds: 60 }),
      empty(),
      empty(),
      text("ok"),
    ]),
    at: "first-stop",
    continueWith: "carry on",
    killAt: "call",
  },
  {
    // The same, the resumed model answering at once.
    name: "real_crashed_call_resumed_answered.jsonl",
    prompt: "use mcp__stub__slow",
    tool: "mcp__stub__slow",
    script: queue([
      toolCall("mcp__stub__slow", { seconds: 60 }),
      text("The slow call was cut short by the crash; its outcome is unknown."),
    ]),
    at: "end",
    continueWith: "carry on",
    killAt: "call",
  },
  {
    // Before 2.1.281 the crashed call gets no result on resume.
    name: "real_crashed_call_resumed_2.1.265.jsonl",
    release: "2.1.265",
    prompt: "use mcp__stub__slow",
    tool: "mcp__stub__slow",
    script: queue([
      toolCall("mcp__stub__slow", { seconds: 60 }),
      text("Picked up after the crash."),
      text("ok"),
    ]),
    at: "end",
    continueWith: "carry on",
    killAt: "call",
  },
  ...["2.1.332", "2.0.76"].map((release): Capture => ({
    // The request after a tool result is refused as too long: Claude Code
    // writes its "Prompt is too long" entry, an error no nudge can fix.
    name: release === "2.1.332"
      ? "real_prompt_too_long_after_tool_result.jsonl"
      : `real_prompt_too_long_after_tool_result_${release}.jsonl`,
    release,
    prompt: "use mcp__stub__echo",
    tool: "mcp__stub__echo",
    script: (_request, index) =>
      index === 0 ? toolCall("mcp__stub__echo", { text: "forty-two" }) : {
        kind: "http_error",
        status: 400,
        errorType: "invalid_request_error",
        message: "prompt is too long: 204452 tokens > 200000 maximum",
      },
    at: "end",
  })),
  ...["2.1.47", "2.1.332"].map((release): Capture => ({
    // A subagent gives its report with a last call, gets the call's
    // result, and ends with no text (an empty reply, twice where Claude
    // Code retries one): before 2.1.72 its parent receives nothing.
    name: `real_subagent_report_then_call_${release}.jsonl`,
    release,
    prompt: "delegate a look at the module",
    tool: "mcp__stub__echo",
    script: delegating([
      toolCall("mcp__stub__echo", { text: "noted" }, SUBAGENT_REPORT),
      empty(),
      empty(),
    ]),
    moreTools: ["Task", "Agent"],
    at: "end",
    files: "subagent",
    disabled: true,
  })),
  {
    // The session ends (claude killed) while its subagent's call runs: the
    // parent's call never got the subagent's return.
    name: "real_subagent_killed_mid_call_2.1.332",
    prompt: "delegate a look at the module",
    tool: "mcp__stub__slow",
    script: delegating([
      toolCall("mcp__stub__slow", { seconds: 60 }, "Waiting for the module."),
    ]),
    moreTools: ["Task", "Agent"],
    at: "end",
    files: "session",
    killAt: "call",
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

/** Cuts long strings of lines that are not user or assistant entries. */
function cutLine(line: string): string {
  if (line === "") return line;
  const entry = JSON.parse(line);
  if (entry.type === "user" || entry.type === "assistant") return line;
  return JSON.stringify(cutStrings(entry));
}

function placeholders(
  text: string,
  root: string,
  project: string,
  hookCommand: string,
): string {
  const slug = project.replaceAll(/[^A-Za-z0-9]/g, "-");
  return text
    .replaceAll(hookCommand, "<HOOK-COMMAND>")
    .replaceAll(slug, "<PROJECT-SLUG>")
    .replaceAll(root, "<WORK>");
}

/**
 * Writes a capture's subagent file, or the session's files in their layout
 * (see {@link Capture.files}), as the session left them.
 */
async function writeSessionFiles(
  capture: Capture,
  session: ClaudeSession,
  code: number | null,
): Promise<void> {
  const files = await session.transcripts();
  const agents = [];
  for (const path of files) {
    if (!/\/agent-[^/]*\.jsonl$/.test(path)) continue;
    const text = await Deno.readTextFile(path);
    if (text.includes(SUBAGENT_TASK)) agents.push({ path, text });
  }
  const main = files.find((path) => !/\/agent-[^/]*$/.test(path));
  const [agent] = agents;
  if (agents.length !== 1 || agent === undefined || main === undefined) {
    throw new Error(
      `${capture.name}: ${agents.length} subagent files (claude exited ${code})`,
    );
  }
  const write = async (to: string, text: string) => {
    const cut = text.split("\n").map(cutLine).join("\n");
    await Deno.mkdir(join(to, ".."), { recursive: true });
    await Deno.writeTextFile(
      to,
      placeholders(cut, session.root, session.project, session.hookCommand),
    );
    console.log(`${to.slice(OUT.length)}: ${cut.split("\n").length - 1} lines`);
  };
  if (capture.files === "subagent") {
    await write(join(OUT, capture.name), agent.text);
    return;
  }
  const sessionId = basename(main, ".jsonl");
  const folder = join(OUT, capture.name);
  await Deno.remove(folder, { recursive: true }).catch(() => {});
  await write(
    join(folder, `${sessionId}.jsonl`),
    await Deno.readTextFile(main),
  );
  await write(
    join(folder, sessionId, "subagents", basename(agent.path)),
    agent.text,
  );
}

const wanted = new Set(Deno.args);
await Deno.mkdir(OUT, { recursive: true });
for (const capture of CAPTURES) {
  if (wanted.size > 0 && !wanted.has(capture.name)) continue;
  const release = capture.release ?? NEWEST_RELEASE;
  const claude = await findOrInstallClaude(release);
  if (!claude) Deno.exit(1);
  await withClaudeSession(
    { claude, script: capture.script },
    async (session) => {
      if (capture.otherHooks) {
        const settings = JSON.parse(
          await Deno.readTextFile(session.settingsPath),
        );
        Object.assign(settings.hooks, capture.otherHooks);
        await Deno.writeTextFile(
          session.settingsPath,
          JSON.stringify(settings),
        );
      }
      const env: Record<string, string> = { STALL_WATCH_TIER_SNAPSHOTS: "1" };
      if (capture.disabled) env.STALL_WATCH_DISABLED = "1";
      for (const [name, text] of Object.entries(capture.projectFiles ?? {})) {
        const path = join(session.project, name);
        await Deno.mkdir(join(path, ".."), { recursive: true });
        await Deno.writeTextFile(path, text);
      }
      let calledAt = 0;
      const callRunning = async () => {
        // The call is in the main transcript, or in a subagent's.
        const files = await session.transcripts();
        const [main] = files;
        for (const path of capture.files === "session" ? files : [main]) {
          if (calledAt !== 0 || path === undefined) continue;
          const text = await Deno.readTextFile(path);
          if (text.includes(`"name":"${capture.tool}"`)) calledAt = Date.now();
        }
        return calledAt > 0 && Date.now() - calledAt > 2_000;
      };
      const resultOnFile = async () => {
        const [main] = await session.transcripts();
        return main !== undefined &&
          (await Deno.readTextFile(main)).includes('"tool_result"') &&
          session.api.mainRequests().length >= 2;
      };
      let run = await session.runPrint(capture.prompt, {
        allowedTools: [capture.tool, ...capture.moreTools ?? []],
        env,
        timeoutMs: 180_000,
        ...(capture.continueWith || capture.files === "session"
          ? { killWhen: capture.killAt === "call" ? callRunning : resultOnFile }
          : {}),
      });
      if (capture.files !== undefined) {
        await writeSessionFiles(capture, session, run.code);
        return;
      }
      const next = capture.continueWith ?? capture.then;
      if (next !== undefined) {
        run = await session.runPrint(next, {
          allowedTools: [capture.tool, ...capture.moreTools ?? []],
          env,
          args: ["--continue"],
        });
      }
      let transcript: string | undefined;
      if (capture.at === "first-stop") {
        const stop = (await session.hookRuns()).find((r) => r.event === "Stop");
        transcript = stop?.transcriptAtStart;
      } else if (capture.then !== undefined) {
        // 2.0.x may leave more than one session file: the conversation is
        // the longest.
        for (const path of await session.transcripts()) {
          if (/\/agent-[^/]*$/.test(path)) continue;
          const text = await Deno.readTextFile(path);
          if (text.length > (transcript?.length ?? -1)) transcript = text;
        }
      } else {
        const [main] = await session.transcripts();
        if (main) transcript = await Deno.readTextFile(main);
      }
      if (transcript === undefined) {
        throw new Error(
          `${capture.name}: no transcript (claude exited ${run.code})`,
        );
      }
      const cut = transcript.split("\n").map(cutLine).join("\n");
      await Deno.writeTextFile(
        join(OUT, capture.name),
        placeholders(cut, session.root, session.project, session.hookCommand),
      );
      console.log(`${capture.name}: ${cut.split("\n").length - 1} lines`);
    },
  );
}
