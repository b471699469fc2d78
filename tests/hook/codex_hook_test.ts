/**
 * `stall-watch codex-stop` in process, through `main()` with a fake io, on
 * the real Codex 0.171.0 captures (`fixtures/codex/`, each with the Stop
 * payloads Codex sent): the same judge as Claude Code's stops on the
 * rollout's turn, the answer Codex takes, the cap Codex lacks, and
 * everything under `.codex`. The real client runs it in
 * `tests/codex_cli/stop_door_test.ts`.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { main } from "../../src/cli.ts";
import { type FakeIO, fakeIO } from "../support/fake_io.ts";
import { tempProject } from "../support/temp_project.ts";
import { CODEX_FIXTURES_DIR, codexStops } from "../support/codex_fixtures.ts";

/** A capture's Stop payload `index` (default the last), aimed at the fixture. */
function stopOf(
  name: string,
  index = -1,
  changes: Record<string, unknown> = {},
): Record<string, unknown> {
  const stops = codexStops(name);
  const { payload } = stops.at(index)!;
  return {
    ...payload,
    transcript_path: payload.transcript_path === null
      ? null
      : join(CODEX_FIXTURES_DIR, name),
    ...changes,
  };
}

/** Runs `codex-stop` on `payload` in `cwd`. */
async function codexStop(
  cwd: string,
  payload: Record<string, unknown> | string,
  env: Record<string, string> = {},
): Promise<FakeIO & { code: number }> {
  const io = fakeIO({
    cwd,
    env,
    stdin: typeof payload === "string" ? payload : JSON.stringify(payload),
    // The real clock's day: the daily prune judges files by their mtimes.
    nowMs: START_MS,
  });
  const code = await main(["codex-stop"], io);
  return Object.assign(io, { code });
}

/** When every run's fake clock starts. */
const START_MS = Date.now();

const stderr = (io: FakeIO) => io.stderr.join("");
const stdout = (io: FakeIO) => io.stdout.join("");

/** What each capture's last Stop gets: exit code, and the report's kind. */
const VERDICTS: Record<string, [number, RegExp | null]> = {
  "codex_call_then_empty_reply.jsonl": [2, /1 missing follow-up in /],
  "codex_custom_tool_call_then_empty_reply.jsonl": [
    2,
    /first stall = apply_patch .*\[missing follow-up\]/,
  ],
  "codex_empty_exec_output_no_reply.jsonl": [2, /1 empty tool_result in /],
  "codex_mcp_empty_result_no_reply.jsonl": [
    2,
    /first stall = mcp__stub__empty .*\[empty tool_result\]/,
  ],
  "codex_partial_output_no_reply.jsonl": [2, /1 missing follow-up in /],
  "codex_healthy_call_then_text.jsonl": [0, null],
  "codex_empty_exec_output_answered.jsonl": [0, null],
  "codex_partial_output_then_reply.jsonl": [0, null],
  "codex_killed_during_call_resumed.jsonl": [0, null],
  "codex_stalled_turn_then_healthy_turn.jsonl": [0, null],
  "codex_blocked_then_answered.jsonl": [0, null],
  "codex_blocked_then_answered_end.jsonl": [0, null],
  // Shadow mode by default: logged, allowed.
  "codex_announced_then_stopped.jsonl": [0, null],
};

/**
 * Captures kept as Codex left the file after the run (the turn's
 * `task_complete`, written after the Stop hooks, is on file): a Stop for a
 * turn that already ended looks like a file ahead of its Stop, and the lag
 * wait judges it after its budget.
 */
const ENDED_ON_FILE = new Set([
  "codex_blocked_then_answered_end.jsonl",
  "codex_killed_during_call_resumed.jsonl",
]);

Deno.test("codex-stop on each real Codex capture's Stop: a stall blocks with exit 2 and its report, a healthy turn is allowed, and no lag wait is spent", async () => {
  for (const [name, [code, report]] of Object.entries(VERDICTS)) {
    await using project = await tempProject();
    const io = await codexStop(project.dir, stopOf(name), {
      STALL_WATCH_LAG_WAIT_MS: "1000",
    });
    assert.equal(io.code, code, `${name}: ${stderr(io)}`);
    if (report === null) assert.equal(stderr(io) + stdout(io), "", name);
    else {
      assert.match(stderr(io), report, name);
      assert.match(stderr(io), /\nstall_watch recovery: /, name);
    }
    // Codex writes the rollout before it runs Stop hooks: nothing to wait for.
    if (!ENDED_ON_FILE.has(name)) {
      assert.equal(io.now(), START_MS, `${name} waited`);
    }
  }
});

Deno.test("codex-stop keeps state and the event log under .codex, never .claude, and reads .codex/stall-watch.jsonc", async () => {
  await using project = await tempProject();
  const dir = project.dir;
  await Deno.mkdir(join(dir, ".codex"));
  await Deno.writeTextFile(
    join(dir, ".codex", "stall-watch.jsonc"),
    '{ "event_log": { "enabled": true }, "announced_no_call": "block" }\n',
  );
  const payload = stopOf("codex_announced_then_stopped.jsonl");
  const blocked = await codexStop(dir, payload);
  assert.equal(blocked.code, 2, stderr(blocked));
  assert.match(stderr(blocked), /\[announced_no_call\] Your message ended/);
  const again = await codexStop(dir, payload);
  assert.equal(again.code, 0);
  assert.match(stderr(again), /retry cap reached \(1\/1\)/);
  const session = String(payload.session_id);
  const state = JSON.parse(
    await Deno.readTextFile(join(dir, ".codex/stall_watch", `${session}.json`)),
  );
  assert.deepEqual(Object.values(state.retries), [1, 1]);
  const events = (await Deno.readTextFile(
    join(dir, ".codex/stall_watch/events.jsonl"),
  )).trim().split("\n").map((line) => JSON.parse(line).event);
  assert.deepEqual(events, [
    "stall_detected",
    "recovery_dispatched",
    "stall_detected",
    "retry_cap_hit",
  ]);
  assert.deepEqual(
    [...Deno.readDirSync(dir)].map((entry) => entry.name),
    [".codex"],
  );
});

Deno.test("codex-stop ignores Claude Code's .claude/stall-watch.jsonc and its state folder", async () => {
  await using project = await tempProject();
  const dir = project.dir;
  await Deno.mkdir(join(dir, ".claude"));
  await Deno.writeTextFile(
    join(dir, ".claude", "stall-watch.jsonc"),
    '{ "kill_switch": true }\n',
  );
  const io = await codexStop(
    dir,
    stopOf("codex_call_then_empty_reply.jsonl"),
  );
  assert.equal(io.code, 2, "the Claude Code config is not Codex's");
  assert.deepEqual([...Deno.readDirSync(join(dir, ".claude"))].length, 1);
});

Deno.test("codex-stop's kill switch: the variable, and a marker file inside .codex", async () => {
  await using project = await tempProject();
  const dir = project.dir;
  const payload = stopOf("codex_call_then_empty_reply.jsonl");
  const off = await codexStop(dir, payload, { STALL_WATCH_DISABLED: "1" });
  assert.equal(off.code, 0);
  assert.match(
    stderr(off),
    /kill switch active \(env STALL_WATCH_DISABLED=1\)/,
  );
  await Deno.mkdir(join(dir, ".codex"), { recursive: true });
  await Deno.writeTextFile(join(dir, ".codex", "stall-watch.off"), "");
  const file = await codexStop(dir, payload, {
    STALL_WATCH_KILL_SWITCH_FILE: ".codex/stall-watch.off",
  });
  assert.equal(file.code, 0);
  assert.match(
    stderr(file),
    /kill switch active \(file \.codex\/stall-watch\.off\)/,
  );
});

/** A `function_call` and its `function_call_output` in `turnId`, as Codex writes them. */
function callLines(callId: string, turnId: string): string {
  const meta = { turn_id: turnId };
  const line = (payload: Record<string, unknown>) =>
    JSON.stringify({
      timestamp: "2026-12-06T05:28:50.000Z",
      type: "response_item",
      payload: { ...payload, internal_chat_message_metadata_passthrough: meta },
    }) + "\n";
  return line({
    type: "function_call",
    status: "completed",
    id: `fc_${callId}`,
    name: "exec_command",
    arguments: JSON.stringify({ cmd: `echo ${callId}` }),
    call_id: callId,
  }) + line({
    type: "function_call_output",
    id: `fco_${callId}`,
    call_id: callId,
    output:
      "Chunk ID: 0a0a0a\nWall time: 0.0000 seconds\nProcess exited with code 0\nOriginal token count: 2\nOutput:\nok\n",
  });
}

Deno.test("codex-stop caps a turn's nudges: each nudge answered by a new call and silence gets a fresh per-call budget, the turn cap (max_retries) ends the loop", async () => {
  await using project = await tempProject();
  const dir = project.dir;
  const name = "codex_call_then_empty_reply.jsonl";
  const rollout = join(dir, "rollout.jsonl");
  await Deno.copyFile(join(CODEX_FIXTURES_DIR, name), rollout);
  const first = stopOf(name);
  const turnId = String(first.turn_id);
  const env = { STALL_WATCH_STOP_HOOK_ACTIVE: "check" };
  const codes: number[] = [];
  for (let stop = 0; stop < 5; stop++) {
    if (stop > 0) {
      await Deno.writeTextFile(rollout, callLines(`call_loop${stop}`, turnId), {
        append: true,
      });
    }
    const io = await codexStop(dir, {
      ...first,
      transcript_path: rollout,
      stop_hook_active: stop > 0,
    }, env);
    codes.push(io.code);
    if (stop === 3) {
      assert.match(
        stderr(io),
        new RegExp(`turn cap reached \\(3/3 nudges in turn:${turnId}\\)`),
      );
    }
  }
  assert.deepEqual(codes, [2, 2, 2, 0, 0]);
  // A new turn starts with a fresh cap.
  const next = await codexStop(dir, {
    ...first,
    transcript_path: rollout,
    turn_id: "another-turn",
  }, env);
  assert.equal(next.code, 0, "a turn the rollout does not hold is no stall");
});

Deno.test("codex-stop on a re-stop (stop_hook_active) allows at once by default, and judges it with stop_hook_active: check", async () => {
  await using project = await tempProject();
  const payload = stopOf("codex_call_then_empty_reply.jsonl", -1, {
    stop_hook_active: true,
  });
  const allowed = await codexStop(project.dir, payload);
  assert.deepEqual([allowed.code, stderr(allowed)], [0, ""]);
  const checked = await codexStop(project.dir, payload, {
    STALL_WATCH_STOP_HOOK_ACTIVE: "check",
  });
  assert.equal(checked.code, 2);
});

Deno.test("codex-stop blocks as JSON with output json, and with context (which Codex does not take)", async () => {
  for (const output of ["json", "context"]) {
    await using project = await tempProject();
    const io = await codexStop(
      project.dir,
      stopOf("codex_empty_exec_output_no_reply.jsonl"),
      { STALL_WATCH_OUTPUT: output },
    );
    assert.equal(io.code, 0, output);
    const block = JSON.parse(stdout(io));
    assert.deepEqual(Object.keys(block), [
      "decision",
      "reason",
      "systemMessage",
    ]);
    assert.equal(block.decision, "block");
    assert.match(block.reason, /^stall_watch recovery: /);
    assert.match(block.systemMessage, /^stall_watch: 1 empty tool_result in /);
    assert.equal(stderr(io), "");
  }
});

Deno.test("codex-stop names no Claude Code command: a hung MCP call's nudge says what Codex users can do", async () => {
  await using project = await tempProject();
  // The killed MCP call, as if Codex had stopped on it.
  const name = "codex_mcp_slow_call_killed.jsonl";
  const text = await Deno.readTextFile(join(CODEX_FIXTURES_DIR, name));
  const turnId = /"task_started".*?"turn_id":"([^"]+)"/.exec(text)?.[1];
  const io = await codexStop(project.dir, {
    session_id: "mcp",
    turn_id: turnId,
    transcript_path: join(CODEX_FIXTURES_DIR, name),
    cwd: project.dir,
    hook_event_name: "Stop",
    model: "gpt-fake",
    permission_mode: "bypassPermissions",
    stop_hook_active: false,
    last_assistant_message: null,
  });
  assert.equal(io.code, 2, stderr(io));
  assert.match(stderr(io), /\[hung_mcp_call\] The MCP tool mcp__stub__slow/);
  assert.match(stderr(io), /a new Codex session starts it again/);
  assert.doesNotMatch(stderr(io), /\/mcp|Claude|Stop hook/);
});

Deno.test("codex-stop without a rollout (transcript_path null, --ephemeral) allows with one line and writes nothing", async () => {
  await using project = await tempProject();
  const io = await codexStop(
    project.dir,
    stopOf("codex_ephemeral_call_then_empty_reply.jsonl"),
  );
  assert.equal(io.code, 0);
  assert.equal(stdout(io), "");
  assert.equal(stderr(io).split("\n").length, 2);
  assert.match(stderr(io), /^stall_watch: Codex wrote no rollout/);
  assert.deepEqual([...Deno.readDirSync(project.dir)], []);
});

Deno.test("codex-stop refuses a payload that is not Codex's Stop in one line (exit 1), and tells once about another event", async () => {
  await using project = await tempProject();
  const claude = await codexStop(project.dir, {
    session_id: "s",
    transcript_path: "/x.jsonl",
    hook_event_name: "Stop",
    stop_hook_active: false,
  });
  assert.equal(claude.code, 1);
  assert.match(
    stderr(claude),
    /^stall-watch: Cannot parse hook input: it is not Codex's Stop payload \("turn_id" is missing\)/,
  );
  assert.equal(stderr(claude).trim().split("\n").length, 1);
  const noPath = await codexStop(project.dir, {
    session_id: "s",
    turn_id: "t",
    hook_event_name: "Stop",
  });
  assert.equal(noPath.code, 1);
  assert.match(stderr(noPath), /"transcript_path" is missing/);
  const subagent = {
    session_id: "s",
    turn_id: "t",
    transcript_path: null,
    hook_event_name: "SubagentStop",
  };
  const told = await codexStop(project.dir, subagent);
  assert.equal(told.code, 0);
  assert.match(
    JSON.parse(stdout(told)).systemMessage,
    /codex-stop ran for SubagentStop, but it is for Stop only.*Codex's hooks\.json.*stall-watch install --codex/,
  );
  const again = await codexStop(project.dir, subagent);
  assert.deepEqual([again.code, stdout(again)], [0, ""]);
});
