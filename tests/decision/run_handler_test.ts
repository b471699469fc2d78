/**
 * The decision room through a fake door: the run sequence every handler
 * shares (`runHandler`), without the Stop hook's or the watcher's own
 * judgement. The doors' tests (tests/hook/, tests/watchdog/) hold what
 * each does on top.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import type { StallSignature } from "../../src/detection/classify.ts";
import { allowOutcome, type Outcome } from "../../src/decision/outcome.ts";
import {
  type Door,
  type Run,
  runHandler,
} from "../../src/decision/run_handler.ts";
import { parsePayloadObject } from "../../src/claude_client/hook_payload.ts";
import type { Handler } from "../../src/claude_client/hook_events.ts";
import { InputError } from "../../src/shared/errors.ts";
import { fakeIO } from "../support/fake_io.ts";
import { tempProject } from "../support/temp_project.ts";

const LOG = ".claude/stall_watch/events.jsonl";

/** A door whose judge is the test's; its input is the payload's `call`. */
function fakeDoor(
  judge: (call: string, run: Run) => Promise<Outcome>,
  options: { handler?: Handler; clientDir?: string } = {},
): Door<string> & { inputsRead: number } {
  const door = {
    handler: options.handler ?? "hook",
    clientDir: options.clientDir ?? ".claude",
    inputsRead: 0,
    read(text: string) {
      const payload = parsePayloadObject(text);
      return {
        payload,
        input: () => {
          door.inputsRead++;
          if (typeof payload.call !== "string") {
            throw new InputError('Cannot parse hook input: "call" is missing');
          }
          return payload.call;
        },
      };
    },
    judge,
  };
  return door;
}

function payload(fields: Record<string, unknown>): string {
  return JSON.stringify({
    session_id: "s1",
    hook_event_name: "Stop",
    ...fields,
  });
}

function stall(toolUseId: string): StallSignature {
  return {
    kind: "pending_tool_use",
    toolName: "Bash",
    toolUseId,
    offset: 0,
    line: 1,
    rule: "a tool_use without a tool_result",
  };
}

async function loggedEvents(dir: string): Promise<string[]> {
  const text = await Deno.readTextFile(join(dir, LOG));
  return text.trim().split("\n").map((line) => JSON.parse(line).event);
}

Deno.test("runHandler() allows an event the handler is not for without reading the door's input, and tells once per session", async () => {
  await using project = await tempProject();
  for (const handler of ["hook", "watch"] as const) {
    const door = fakeDoor(() => assert.fail("a misregistered run is judged"), {
      handler,
    });
    const io = fakeIO({ cwd: project.dir });
    const text = payload({
      hook_event_name: "PreToolUse",
      session_id: handler,
    });
    const first = await runHandler(door, text, io);
    assert.equal(first.exitCode, 0);
    assert.equal(first.stderr, "");
    assert.match(
      JSON.parse(first.stdout).systemMessage,
      /ran for PreToolUse, but it is for /,
    );
    assert.deepEqual(await runHandler(door, text, io), {
      exitCode: 0,
      stdout: "",
      stderr: "",
    });
    assert.equal(door.inputsRead, 0, "no input read: it may lack its fields");
  }
});

Deno.test("runHandler() tells a misregistered Stop hook's config problems too, and the watcher's never", async () => {
  await using project = await tempProject();
  const env = { STALL_WATCH_MAX_RETRIES: "many" };
  const told = async (handler: Handler) => {
    const door = fakeDoor(() => assert.fail("judged"), { handler });
    const outcome = await runHandler(
      door,
      payload({ hook_event_name: "UserPromptSubmit", session_id: handler }),
      fakeIO({ cwd: project.dir, env }),
    );
    return JSON.parse(outcome.stdout).systemMessage as string;
  };
  assert.match(
    await told("hook"),
    /\nstall-watch config problem .*MAX_RETRIES/,
  );
  assert.doesNotMatch(await told("watch"), /config problem/);
});

Deno.test("runHandler() reads the door's input for its own event and hands the judge the settings", async () => {
  await using project = await tempProject();
  const seen: string[] = [];
  const door = fakeDoor((call, run) => {
    seen.push(`${call} ${run.settings.maxRetries}`);
    return Promise.resolve(allowOutcome(null, ["one line"]));
  });
  const io = fakeIO({
    cwd: project.dir,
    env: { STALL_WATCH_MAX_RETRIES: "2" },
  });
  const outcome = await runHandler(door, payload({ call: "c1" }), io);
  assert.deepEqual(outcome, { exitCode: 0, stdout: "", stderr: "one line\n" });
  assert.deepEqual(seen, ["c1 2"]);
  // Without a hook_event_name: the first event the handler is for.
  await runHandler(door, JSON.stringify({ call: "c2" }), io);
  assert.deepEqual(seen, ["c1 2", "c2 2"]);
  await assert.rejects(
    () => runHandler(door, payload({}), io),
    InputError,
    "the door's required field",
  );
  await assert.rejects(() => runHandler(door, "[]", io), InputError);
});

Deno.test("runHandler() logs the judge's events and the decision's in order, once the run ends", async () => {
  await using project = await tempProject();
  const door = fakeDoor(async (call, run) => {
    run.log(run.event("watch_started", { call }));
    const decision = await run.decide({
      transcriptPath: "/t.jsonl",
      signatures: [stall(call)],
      reason: "test",
    });
    assert.equal(decision.action, "recover");
    run.log(run.event("watch_finished", { outcome: "nudged" }));
    return { exitCode: 2, stdout: "", stderr: "nudge\n" };
  });
  const io = fakeIO({ cwd: project.dir, env: { STALL_WATCH_LOG_FILE: LOG } });
  const outcome = await runHandler(door, payload({ call: "toolu_1" }), io);
  assert.deepEqual(outcome, { exitCode: 2, stdout: "", stderr: "nudge\n" });
  assert.deepEqual(await loggedEvents(project.dir), [
    "watch_started",
    "stall_detected",
    "recovery_dispatched",
    "watch_finished",
  ]);
  const first = JSON.parse(
    (await Deno.readTextFile(join(project.dir, LOG))).split("\n")[0]!,
  );
  assert.equal(first.session_id, "s1");
  assert.equal(first.hook_event, "Stop");
  assert.equal(first.call, "toolu_1");
});

Deno.test("runHandler()'s flush() writes the events so far while the run goes on", async () => {
  await using project = await tempProject();
  const door = fakeDoor(async (_call, run) => {
    run.log(run.event("watch_started", {}));
    await run.flush();
    assert.deepEqual(await loggedEvents(project.dir), ["watch_started"]);
    run.log(run.event("watch_finished", {}));
    return allowOutcome(null);
  });
  const io = fakeIO({ cwd: project.dir, env: { STALL_WATCH_LOG_FILE: LOG } });
  await runHandler(door, payload({ call: "c" }), io);
  assert.deepEqual(await loggedEvents(project.dir), [
    "watch_started",
    "watch_finished",
  ]);
});

Deno.test("runHandler()'s decide() draws on one retry budget per tool_use_id, for every door", async () => {
  await using project = await tempProject();
  const decide = (retryCap?: number) =>
    fakeDoor(async (call, run) => {
      const decision = await run.decide({
        transcriptPath: "/t.jsonl",
        signatures: [stall(call)],
        reason: "test",
        ...(retryCap === undefined ? {} : { retryCap }),
      });
      return decision.action === "recover"
        ? { exitCode: 2, stdout: "", stderr: decision.message }
        : allowOutcome(null, [decision.line]);
    });
  // The real clock: on the fake one (2027) the sweeper takes today's
  // state file for a stale one.
  const io = fakeIO({
    cwd: project.dir,
    env: { STALL_WATCH_MAX_RETRIES: "2" },
    nowMs: Date.now(),
  });
  const run = (door: Door<string>, call: string) =>
    runHandler(door, payload({ call }), io);
  // Two doors, one session: the budget is the session's, per call.
  assert.equal((await run(decide(), "toolu_a")).exitCode, 2);
  assert.equal((await run(decide(), "toolu_a")).exitCode, 2);
  const capped = await run(decide(), "toolu_a");
  assert.equal(capped.exitCode, 0);
  assert.match(capped.stderr, /retry cap reached \(2\/2\)/);
  // A lower cap for one stall (an announced stop is nudged once a turn).
  assert.equal((await run(decide(1), "toolu_b")).exitCode, 2);
  assert.match((await run(decide(1), "toolu_b")).stderr, /\(1\/1\)/);
});

Deno.test("runHandler()'s configNotice() tells a config problem once per session", async () => {
  await using project = await tempProject();
  const door = fakeDoor(async (_call, run) =>
    allowOutcome(await run.configNotice())
  );
  const io = fakeIO({ cwd: project.dir, env: { STALL_WATCH_OUTPUT: "loud" } });
  const first = await runHandler(door, payload({ call: "c" }), io);
  assert.match(
    JSON.parse(first.stdout).systemMessage,
    /^stall-watch config problem \(defaults used instead\): .*STALL_WATCH_OUTPUT/,
  );
  const again = await runHandler(door, payload({ call: "c" }), io);
  assert.equal(again.stdout, "");
  const other = await runHandler(
    door,
    payload({ call: "c", session_id: "s2" }),
    io,
  );
  assert.notEqual(other.stdout, "", "another session is told too");
});

Deno.test("runHandler() reports a state file moved aside after the door's lines, and logs it", async () => {
  await using project = await tempProject();
  const stateDir = join(project.dir, ".claude", "stall_watch");
  await Deno.mkdir(stateDir, { recursive: true });
  // Cut short, as a full disk leaves it.
  await Deno.writeTextFile(
    join(stateDir, "s1.json"),
    '{\n  "config_notice": null,\n  "last_recovery_at": 17',
  );
  const door = fakeDoor(async (call, run) => {
    const decision = await run.decide({
      transcriptPath: "/t.jsonl",
      signatures: [stall(call)],
      reason: "test",
    });
    return {
      exitCode: 2,
      stdout: "",
      stderr: (decision as { message: string }).message,
    };
  });
  const io = fakeIO({ cwd: project.dir, env: { STALL_WATCH_LOG_FILE: LOG } });
  const outcome = await runHandler(door, payload({ call: "toolu_1" }), io);
  assert.equal(outcome.exitCode, 2, "nudged on a fresh budget");
  const lines = outcome.stderr.trimEnd().split("\n");
  assert.match(
    lines.at(-1)!,
    /^stall_watch: session state file ".*s1\.json" could not be used \(it is not valid JSON\); moved it aside to s1\.json\.quarantined-1 and started a fresh retry budget$/,
  );
  assert.match(lines[0]!, /^stall_watch: 1 pending tool_use/);
  assert.deepEqual(await loggedEvents(project.dir), [
    "state_quarantined",
    "stall_detected",
    "recovery_dispatched",
  ]);
});

Deno.test("runHandler() adds one line when the log cannot be written, and keeps the outcome", async () => {
  await using project = await tempProject();
  // The log's path is a folder: appending to it fails.
  await Deno.mkdir(join(project.dir, LOG), { recursive: true });
  const door = fakeDoor((_call, run) => {
    run.log(run.event("healthy_stop", {}));
    return Promise.resolve({ exitCode: 2, stdout: "", stderr: "block\n" });
  });
  const io = fakeIO({ cwd: project.dir, env: { STALL_WATCH_LOG_FILE: LOG } });
  const outcome = await runHandler(door, payload({ call: "c" }), io);
  assert.equal(outcome.exitCode, 2);
  assert.match(
    outcome.stderr,
    /^block\nstall_watch: event log not written \(.+\)\n$/,
  );
});

Deno.test("runHandler() keeps state and log below the door's client folder by default, and refuses a path outside it", async () => {
  await using project = await tempProject();
  const settingsOf = async (clientDir: string, env = {}) => {
    let seen: Run["settings"] | null = null;
    const door = fakeDoor((_call, run) => {
      seen = run.settings;
      return Promise.resolve(allowOutcome(null));
    }, { clientDir });
    await runHandler(
      door,
      payload({ call: "c" }),
      fakeIO({ cwd: project.dir, env }),
    );
    const { stateDir, eventLogPath } = seen!;
    return [stateDir, eventLogPath];
  };
  assert.deepEqual(await settingsOf(".claude"), [
    ".claude/stall_watch",
    ".claude/stall_watch/events.jsonl",
  ]);
  assert.deepEqual(await settingsOf(".codex"), [
    ".codex/stall_watch",
    ".codex/stall_watch/events.jsonl",
  ]);
  assert.deepEqual(
    await settingsOf(".codex", { STALL_WATCH_STATE_DIR: ".claude/elsewhere" }),
    [".codex/stall_watch", ".codex/stall_watch/events.jsonl"],
  );
});
