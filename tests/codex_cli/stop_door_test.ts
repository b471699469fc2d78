/**
 * stall-watch's Codex door (`stall-watch codex-stop`) as the Stop hook of
 * the real Codex (the pinned release) offline against the fake Responses
 * API: each scenario asserts what the model received (every request is
 * recorded), what the hook answered (the logging wrapper keeps each run),
 * and how the turn ended. The last ones run the hook as
 * `stall-watch install --codex` registers and trusts it, with no bypass
 * flag.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import {
  empty,
  execCall,
  queue,
  type RecordedRequest,
  type Script,
  text,
  userTexts,
} from "./support/fake_responses.ts";
import {
  type CodexRun,
  type CodexSession,
  type ExecOptions,
  parseJsonl,
} from "./support/codex_session.ts";
import {
  CODEX_STOP_HOOK,
  CODEX_TIER_FLAGS,
  codexTest,
  MAIN_TS,
  stallWatch,
  trustProject,
} from "./support/tier.ts";

/** Runs `fn` with stall-watch's door as the session's Stop hook. */
function scenario(
  name: string,
  script: Script,
  fn: (session: CodexSession) => Promise<void>,
  config = '{ "event_log": { "enabled": true } }',
): void {
  codexTest(name, { script }, async (session) => {
    await session.setStopHook(CODEX_STOP_HOOK);
    await Deno.mkdir(join(session.project, ".codex"));
    await Deno.writeTextFile(
      join(session.project, ".codex", "stall-watch.jsonc"),
      config + "\n",
    );
    await fn(session);
  });
}

/** The nudge a request carried: its last user message, a `<hook_prompt>`. */
function nudgeIn(request: RecordedRequest | undefined): string {
  const last = userTexts(request).at(-1) ?? "";
  const match =
    /^<hook_prompt hook_run_id="stop:\d+:[^"]*">([^]*)<\/hook_prompt>$/
      .exec(last);
  assert.ok(match, `not a hook prompt: ${last.slice(0, 200)}`);
  return match[1]!;
}

/** The events of the door's log in the project. */
async function loggedEvents(session: CodexSession): Promise<string[]> {
  const text = await Deno.readTextFile(
    join(session.project, ".codex", "stall_watch", "events.jsonl"),
  );
  return parseJsonl(text).map((e) => String(e.event));
}

/** The run ended its turn: exit 0 and a `turn.completed` event. */
function assertTurnCompleted(run: CodexRun): void {
  assert.equal(run.code, 0, run.stderr);
  assert.ok(
    run.events.some((e) => e.type === "turn.completed"),
    JSON.stringify(run.events.map((e) => e.type)),
  );
}

/**
 * Runs `prompt` to the end of a turn whose stall the model answers after
 * one nudge: three requests, the third carrying the nudge.
 *
 * @returns The nudge the model got.
 */
async function nudgedOnce(
  session: CodexSession,
  prompt: string,
  exec: ExecOptions = {},
): Promise<{ nudge: string; run: CodexRun }> {
  const run = await session.runExec(prompt, exec);
  assertTurnCompleted(run);
  const requests = session.api.mainRequests();
  assert.equal(requests.length, 3);
  assert.equal(session.api.overruns, 0);
  return { nudge: nudgeIn(requests[2]), run };
}

/** What is in the project: the door writes only in `.codex`. */
function projectEntries(session: CodexSession): string[] {
  return [...Deno.readDirSync(session.project)].map((e) => e.name).sort();
}

scenario(
  "the door allows a healthy turn: the model is asked nothing more, nothing is nudged",
  queue([execCall("echo hello"), text("It said hello.")]),
  async (session) => {
    assertTurnCompleted(await session.runExec("run echo hello"));
    assert.equal(session.api.mainRequests().length, 2);
    const stops = await session.stopRuns();
    assert.deepEqual(stops.map((s) => [s.code, s.stderr]), [[0, ""]]);
    assert.deepEqual(await loggedEvents(session), ["healthy_stop"]);
    assert.equal(session.api.overruns, 0);
  },
);

scenario(
  "a call, then an empty reply: the door blocks once, the model gets the nudge for exec_command in the same turn and answers it",
  queue([execCall("echo hello"), empty(), text("The command said hello.")]),
  async (session) => {
    const { nudge } = await nudgedOnce(session, "run echo hello");
    assert.match(nudge, /^stall_watch: 1 missing follow-up in .*rollout-/);
    assert.match(
      nudge,
      /\n- \[missing_followup\] exec_command \(cmd="echo hello"\) returned a result you have not answered\./,
    );
    assert.doesNotMatch(nudge, /Stop hook|Claude|\/mcp/);
    const [blocked, again, ...more] = await session.stopRuns();
    assert.equal(more.length, 0);
    assert.equal(blocked?.code, 2);
    assert.equal(again?.code, 0);
    assert.equal(again?.payload.stop_hook_active, true);
    assert.equal(again?.payload.turn_id, blocked?.payload.turn_id);
    assert.deepEqual(await loggedEvents(session), [
      "stall_detected",
      "recovery_dispatched",
    ]);
    assert.deepEqual(projectEntries(session), [".codex"]);
  },
);

scenario(
  "an exec_command that prints nothing, then an empty reply: blocked once as an empty result, and the model says so",
  queue([execCall("true"), empty(), text("It printed nothing.")]),
  async (session) => {
    const { nudge } = await nudgedOnce(session, "run true");
    assert.match(nudge, /^stall_watch: 1 empty tool_result in /);
    assert.match(
      nudge,
      /\n- \[empty_tool_result\] exec_command \(cmd=true\) returned an empty result\./,
    );
    assert.deepEqual((await session.stopRuns()).map((s) => s.code), [2, 0]);
  },
);

scenario(
  "work done, then an announcement and a stop: shadow mode logs it and allows, the model is asked nothing more",
  queue([
    execCall("ls -a", "Looking first."),
    text("The folder is empty. Let me run the tests now."),
  ]),
  async (session) => {
    assertTurnCompleted(await session.runExec("run the tests"));
    assert.equal(session.api.mainRequests().length, 2);
    assert.deepEqual((await session.stopRuns()).map((s) => s.code), [0]);
    assert.deepEqual(await loggedEvents(session), ["announced_stop"]);
  },
);

scenario(
  'announced_no_call "block": the announcement is nudged once, the model makes the call it announced',
  queue([
    execCall("ls -a", "Looking first."),
    text("The folder is empty. Let me run the tests now."),
    execCall("echo tests passed", ""),
    text("The tests passed."),
  ]),
  async (session) => {
    assertTurnCompleted(await session.runExec("run the tests"));
    const requests = session.api.mainRequests();
    assert.equal(requests.length, 4);
    const nudge = nudgeIn(requests[2]);
    assert.match(
      nudge,
      /\n- \[announced_no_call\] Your message ended with "Let me run the tests now\."\./,
    );
    assert.deepEqual((await session.stopRuns()).map((s) => s.code), [2, 0]);
    assert.equal(session.api.overruns, 0);
  },
  '{ "event_log": { "enabled": true }, "announced_no_call": "block" }',
);

scenario(
  "the re-stop with stop_hook_active: the model stays silent after the nudge, the door allows at once and Codex ends the turn",
  queue([execCall("echo hello"), empty(), empty()]),
  async (session) => {
    assertTurnCompleted(await session.runExec("run echo hello"));
    assert.equal(session.api.mainRequests().length, 3);
    const stops = await session.stopRuns();
    assert.deepEqual(
      stops.map((s) => [s.code, s.payload.stop_hook_active, s.stderr]),
      [[2, false, stops[0]?.stderr], [0, true, ""]],
    );
  },
);

/**
 * A model that answers every nudge with a new call and then says nothing:
 * each stall is a fresh call with a fresh retry budget, and Codex has no
 * cap on blocks. Past `limit` requests it gives up with text, so a missing
 * cap fails the test instead of hanging it.
 */
function freshCallLoop(limit: number): Script {
  return (_request, index) =>
    index >= limit
      ? text("(the loop went on past the cap)")
      : index % 2 === 0
      ? execCall(`echo step ${index / 2 + 1}`, "")
      : empty();
}

scenario(
  "the cap ends a loop of stalls: each nudge is answered by a new call and silence; after max_retries nudges in the turn the door stops blocking and Codex ends the turn",
  freshCallLoop(12),
  async (session) => {
    assertTurnCompleted(await session.runExec("run the steps"));
    const stops = await session.stopRuns();
    assert.deepEqual(stops.map((s) => s.code), [2, 2, 2, 0]);
    assert.ok(
      stops.every((s) => s.payload.turn_id === stops[0]?.payload.turn_id),
    );
    // Once a hook blocked, every later Stop of the turn says so, new calls
    // or not: with the default stop_hook_active "allow" a turn is nudged once.
    assert.deepEqual(stops.map((s) => s.payload.stop_hook_active), [
      false,
      true,
      true,
      true,
    ]);
    assert.match(
      stops[3]!.stderr,
      /^stall_watch: turn cap reached \(3\/3 nudges in turn:[^)]+\); recovery skipped\n$/,
    );
    const requests = session.api.mainRequests();
    assert.equal(requests.length, 8);
    // Each nudge named the new call: a fresh retry budget every time.
    for (
      const [n, request] of [[1, requests[2]], [2, requests[4]], [
        3,
        requests[6],
      ]] as const
    ) {
      assert.match(
        nudgeIn(request),
        new RegExp(`cmd="echo step ${n}"`),
      );
    }
    const events = await loggedEvents(session);
    assert.equal(events.at(-1), "retry_cap_hit");
    assert.equal(events.filter((e) => e === "recovery_dispatched").length, 3);
  },
  '{ "event_log": { "enabled": true }, "stop_hook_active": "check" }',
);

scenario(
  "the cap ends a loop of stalls when the model stays silent every time: blocked until the turn's cap, then allowed, and Codex ends the turn",
  queue([execCall("echo hello"), empty(), empty(), empty(), empty()]),
  async (session) => {
    assertTurnCompleted(await session.runExec("run echo hello"));
    const stops = await session.stopRuns();
    assert.deepEqual(stops.map((s) => s.code), [2, 2, 2, 0]);
    assert.match(stops[3]!.stderr, /^stall_watch: turn cap reached \(3\/3 /);
    assert.equal(session.api.mainRequests().length, 5);
    assert.equal(session.api.overruns, 0);
  },
  '{ "stop_hook_active": "check" }',
);

scenario(
  'output "json": the block is {"decision":"block"}, the model gets the recovery prompt alone and answers it',
  queue([execCall("echo hello"), empty(), text("The command said hello.")]),
  async (session) => {
    const { nudge } = await nudgedOnce(session, "run echo hello");
    assert.match(nudge, /^stall_watch recovery: a tool call in this turn/);
    assert.doesNotMatch(nudge, /missing follow-up in /);
    const [blocked] = await session.stopRuns();
    assert.equal(blocked?.code, 0);
    assert.equal(JSON.parse(blocked!.stdout).decision, "block");
  },
  '{ "output": "json" }',
);

scenario(
  "--ephemeral: no rollout, so the door allows with one line and logs why, keeping no state; the model is asked nothing more",
  queue([execCall("echo hello"), empty()]),
  async (session) => {
    assertTurnCompleted(
      await session.runExec("run echo hello", { ephemeral: true }),
    );
    assert.equal(session.api.mainRequests().length, 2);
    const [stop, ...more] = await session.stopRuns();
    assert.equal(more.length, 0);
    assert.equal(stop?.payload.transcript_path, null);
    assert.equal(stop?.code, 0);
    assert.match(
      stop!.stderr,
      /^stall_watch: Codex wrote no rollout .*; stop allowed\n$/,
    );
    assert.deepEqual(await session.rollouts(), []);
    assert.deepEqual(await loggedEvents(session), ["healthy_stop"]);
    assert.deepEqual(
      [...Deno.readDirSync(join(session.project, ".codex", "stall_watch"))]
        .map((e) => e.name).filter((name) => name.endsWith(".json")),
      [],
    );
  },
);

/** A session with no Stop hook of the tier's: stall-watch's own install runs. */
function installed(
  name: string,
  script: Script,
  fn: (session: CodexSession) => Promise<void>,
): void {
  codexTest(name, { script, stopHook: false }, fn);
}

installed(
  "an install that leaves the hook untrusted: codex exec skips it without a word and the stall goes unnudged, doctor says Codex will not run it",
  queue([execCall("echo hello"), empty()]),
  async (session) => {
    await trustProject(session);
    // No codex on stall-watch's PATH: it cannot ask Codex to trust the hook.
    const install = await session.run(Deno.execPath(), [
      "run",
      ...CODEX_TIER_FLAGS,
      MAIN_TS,
      "install",
      "--codex",
    ], { env: { PATH: "/usr/bin:/bin" } });
    assert.equal(install.code, 0, install.stderr);
    assert.match(install.stdout + install.stderr, /\/hooks/);
    const run = await session.runExec("run echo hello", {
      bypassHookTrust: false,
    });
    assertTurnCompleted(run);
    assert.equal(session.api.mainRequests().length, 2, "nothing nudged");
    assert.doesNotMatch(run.stdout + run.stderr, /hook/i);
    const doctor = await stallWatch(session, ["doctor", "--codex"]);
    assert.equal(doctor.code, 1, doctor.stdout);
    assert.match(doctor.stdout, /not trusted/);
  },
);

installed(
  "stall-watch install --codex, trusted, then the real codex exec with no bypass flag: the stall is nudged once and the model continues",
  queue([execCall("echo hello"), empty(), text("The command said hello.")]),
  async (session) => {
    await trustProject(session);
    const install = await stallWatch(session, ["install", "--codex"]);
    assert.equal(install.code, 0, install.stderr);
    assert.match(install.stdout, /Trusted in Codex/);
    const doctor = await stallWatch(session, ["doctor", "--codex"]);
    assert.equal(doctor.code, 0, doctor.stdout);
    const { nudge, run } = await nudgedOnce(session, "run echo hello", {
      bypassHookTrust: false,
    });
    assert.doesNotMatch(run.stdout + run.stderr, /bypass/i);
    assert.match(nudge, /^stall_watch: 1 missing follow-up in /);
    assert.match(nudge, /\[missing_followup\] exec_command/);
    assert.match(JSON.stringify(run.events), /The command said hello\./);
    const state = [
      ...Deno.readDirSync(join(session.project, ".codex", "stall_watch")),
    ].map((e) => e.name);
    assert.ok(state.some((name) => name.endsWith(".json")), state.join());
    assert.deepEqual(projectEntries(session), [".codex"]);
  },
);
