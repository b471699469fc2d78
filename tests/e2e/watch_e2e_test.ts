/**
 * The watchdog as Claude Code runs it: `stall-watch watch` as a separate
 * process under the release permission flags, a PostToolUse payload on
 * stdin, and a real-shaped transcript that the test appends to while the
 * watcher waits. Windows are shortened through the environment.
 */

import assert from "node:assert/strict";
import { join, relative } from "node:path";
import { DEFAULT_TEXT } from "../../src/recovery/nudge_texts.ts";
import {
  type ProcessResult,
  type RunningStallWatch,
  runStallWatch,
  spawnStallWatch,
} from "../support/hook_process.ts";
import { tempProject } from "../support/temp_project.ts";
import {
  newId,
  postToolUsePayload,
  SessionTranscript,
  waitUntil,
} from "../support/watch_session.ts";

const LOG_FILE = ".claude/stall_watch/events.jsonl";

/** A project folder (cwd of the watcher) and a transcript outside it. */
interface Session {
  project: string;
  transcript: SessionTranscript;
  /** The watched Bash call. */
  callId: string;
}

/** A fresh {@link Session}; disposal removes both folders. */
async function tempSession(): Promise<Session & AsyncDisposable> {
  await using folders = new AsyncDisposableStack();
  const project = folders.use(await tempProject());
  // Stands in for ~/.claude/projects/<slug>.
  const home = folders.use(await tempProject());
  const transcript = new SessionTranscript(home.dir);
  const callId = newId("toolu_");
  await transcript.append(
    transcript.snapshot(),
    transcript.prompt("The invoice tests fail, can you fix them?"),
    transcript.text("I'll run the invoice tests to see the failure."),
    transcript.toolUse(callId, "Bash", { command: "npm test" }),
  );
  const owned = folders.move();
  return {
    project: project.dir,
    transcript,
    callId,
    [Symbol.asyncDispose]: () => owned.disposeAsync(),
  };
}

function watch(
  s: Session,
  env: Record<string, string> = {},
  toolUseId = s.callId,
  extra: Record<string, unknown> = {},
): Promise<RunningStallWatch> {
  return spawnStallWatch({
    cwd: s.project,
    args: ["watch"],
    stdin: postToolUsePayload(s.transcript, toolUseId, "Bash", extra),
    env: { STALL_WATCH_LOG_FILE: LOG_FILE, ...env },
  });
}

/**
 * Waits until the watcher of `toolUseId` has had its first look at the
 * transcript (it logs `watch_started` then), so what the test appends next
 * is news to it.
 */
async function watching(s: Session, toolUseId = s.callId): Promise<void> {
  await waitUntil(async () => {
    try {
      return (await events(s)).some((e) =>
        e.event === "watch_started" && e.tool_use_id === toolUseId
      );
    } catch {
      return false;
    }
  }, `the watcher of ${toolUseId} to start`);
}

/** The exit, or `null` if the process is still running after `ms`. */
async function exitWithin(
  running: RunningStallWatch,
  ms: number,
): Promise<ProcessResult | null> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<null>((resolve) => {
    timer = setTimeout(() => resolve(null), ms);
  });
  try {
    return await Promise.race([running.finished, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

async function finished(
  running: RunningStallWatch,
  ms = 20_000,
): Promise<ProcessResult> {
  const result = await exitWithin(running, ms);
  if (result === null) {
    running.kill();
    await running.finished; // reap it
  }
  assert.ok(result, `the watcher did not exit within ${ms} ms`);
  return result;
}

async function events(s: Session): Promise<Record<string, unknown>[]> {
  const text = await Deno.readTextFile(join(s.project, LOG_FILE));
  return text.split("\n").filter((l) => l !== "").map((l) => JSON.parse(l));
}

async function outcomeOf(s: Session, toolUseId = s.callId): Promise<unknown> {
  const done = (await events(s)).filter((e) =>
    e.event === "watch_finished" && e.tool_use_id === toolUseId
  );
  assert.equal(done.length, 1, `one watch_finished for ${toolUseId}`);
  return done[0]?.outcome;
}

async function retries(s: Session): Promise<Record<string, number>> {
  const path = join(
    s.project,
    ".claude/stall_watch",
    `${s.transcript.sessionId}.json`,
  );
  try {
    return JSON.parse(await Deno.readTextFile(path)).retries;
  } catch {
    return {};
  }
}

function stderrLines(result: ProcessResult): string[] {
  return result.stderr.split("\n").filter((l) => l !== "");
}

function assertNudge(
  result: ProcessResult,
  s: Session,
  toolUseId: string,
  line: number,
): void {
  assert.equal(result.code, 2, result.stderr);
  assert.equal(result.stdout, "");
  const lines = stderrLines(result);
  assert.equal(
    lines[0],
    `stall_watch: 1 missing follow-up in ${s.transcript.path}`,
  );
  assert.equal(
    lines[1],
    `stall_watch: first stall = Bash (id=${toolUseId}) at line ${line} [missing follow-up]`,
  );
  // The session is idle: the wake-up says so, and does not speak of a stop.
  assert.equal(lines[2], DEFAULT_TEXT.idleHeader);
  assert.match(
    lines[3] as string,
    /^- \[missing_followup\] Bash \(command="[^"]+"\) returned a result you have not answered/,
  );
  assert.doesNotMatch(result.stderr, /before you tried to stop/);
}

Deno.test("watch exits 0 silently when the model follows up after a result that arrives late", async () => {
  await using s = await tempSession();
  // The PostToolUse fires before its own result reaches the file.
  const running = await watch(s, { STALL_WATCH_IDLE_SECONDS: "3" });
  await watching(s);
  await s.transcript.append(s.transcript.result(s.callId, "Tests  1 failed"));
  await new Promise((resolve) => setTimeout(resolve, 300));
  assert.equal(await exitWithin(running, 0), null, "still watching");
  await s.transcript.append(
    s.transcript.attachment(),
    s.transcript.text("One test fails: the discount is applied after tax."),
  );
  const result = await finished(running, 5_000);
  assert.deepEqual([result.code, result.stdout, result.stderr], [0, "", ""]);
  assert.equal(await outcomeOf(s), "followed_up");
  assert.deepEqual(await retries(s), {});
});

Deno.test("watch exits 0 silently when a newer tool call's watcher supersedes it", async () => {
  await using s = await tempSession();
  await s.transcript.append(s.transcript.result(s.callId, "Tests  1 failed"));
  const older = await watch(s, { STALL_WATCH_IDLE_SECONDS: "60" });
  await watching(s);
  const newerId = newId("toolu_");
  const started = Date.now();
  const newer = await watch(
    s,
    { STALL_WATCH_IDLE_SECONDS: "60", STALL_WATCH_WATCH_MAX_SECONDS: "2" },
    newerId,
  );
  const result = await finished(older, 10_000);
  assert.deepEqual([result.code, result.stdout, result.stderr], [0, "", ""]);
  assert.ok(Date.now() - started < 8_000, "the older watcher left promptly");
  const last = await finished(newer);
  assert.deepEqual([last.code, last.stderr], [0, ""]);
  assert.equal(await outcomeOf(s), "superseded");
  assert.equal(await outcomeOf(s, newerId), "deadline");
});

Deno.test("watch exits 2 at once when the turn ends (turn_duration) after an unanswered result", async () => {
  await using s = await tempSession();
  await s.transcript.append(s.transcript.result(s.callId, "Tests  1 failed"));
  const resultLine = s.transcript.lineCount;
  const running = await watch(s, { STALL_WATCH_IDLE_SECONDS: "120" });
  await watching(s);
  const started = Date.now();
  await s.transcript.append(
    s.transcript.attachment(),
    s.transcript.turnDuration(),
    s.transcript.snapshot(),
  );
  const result = await finished(running, 10_000);
  assert.ok(Date.now() - started < 5_000, "judged without the idle window");
  assertNudge(result, s, s.callId, resultLine);
  assert.deepEqual(await retries(s), { [s.callId]: 1 });
  const log = await events(s);
  assert.deepEqual(log.map((e) => e.event), [
    "watch_started",
    "stall_detected",
    "recovery_dispatched",
    "watch_finished",
  ]);
  assert.equal(log[1]?.hook_event, "PostToolUse");
  assert.equal(log[1]?.trigger, "turn_end");
  assert.equal(log[3]?.outcome, "nudged");
});

Deno.test("watch exits 2 with the nudge after the idle window when nothing answers the result", async () => {
  await using s = await tempSession();
  const running = await watch(s, { STALL_WATCH_IDLE_SECONDS: "0.5" });
  await watching(s);
  await s.transcript.append(s.transcript.result(s.callId, "Tests  1 failed"));
  const resultLine = s.transcript.lineCount;
  await s.transcript.append(s.transcript.attachment());
  const grown = Date.now();
  const result = await finished(running, 10_000);
  assert.ok(Date.now() - grown >= 500, "waited for the idle window");
  assertNudge(result, s, s.callId, resultLine);
  assert.deepEqual(await retries(s), { [s.callId]: 1 });
  const detected = (await events(s)).find((e) => e.event === "stall_detected");
  assert.equal(detected?.trigger, "idle");
});

Deno.test("watch with the kill switch variable on exits 0 at once with its line", async () => {
  await using s = await tempSession();
  await s.transcript.append(s.transcript.result(s.callId, "Tests  1 failed"));
  const result = await finished(
    await watch(s, {
      STALL_WATCH_IDLE_SECONDS: "60",
      STALL_WATCH_DISABLED: "1",
    }),
    10_000,
  );
  assert.equal(result.code, 0);
  assert.deepEqual(stderrLines(result), [
    "stall_watch: kill switch active (env STALL_WATCH_DISABLED=1); watch skipped",
  ]);
  assert.equal(await outcomeOf(s), "kill_switch");
  assert.deepEqual(await retries(s), {});
});

Deno.test("watch holds back a nudge when the kill switch file appears during the watch", async () => {
  await using s = await tempSession();
  await s.transcript.append(s.transcript.result(s.callId, "Tests  1 failed"));
  const running = await watch(s, {
    STALL_WATCH_IDLE_SECONDS: "2.5",
    STALL_WATCH_KILL_SWITCH_FILE: ".claude/stall-watch.off",
  });
  await watching(s);
  await Deno.writeTextFile(join(s.project, ".claude/stall-watch.off"), "");
  const result = await finished(running, 10_000);
  assert.equal(result.code, 0);
  assert.deepEqual(stderrLines(result), [
    "stall_watch: kill switch active (file .claude/stall-watch.off); recovery skipped",
  ]);
  assert.deepEqual(await retries(s), {});
  assert.equal(await outcomeOf(s), "suppressed");
});

Deno.test("watch shares the per-tool_use_id budget with the Stop hook and exits 0 once it is spent", async () => {
  await using s = await tempSession();
  await s.transcript.append(s.transcript.result(s.callId, "Tests  1 failed"));
  const env = {
    STALL_WATCH_IDLE_SECONDS: "0.3",
    STALL_WATCH_MAX_RETRIES: "2",
  };
  const first = await finished(await watch(s, env));
  assert.equal(first.code, 2, first.stderr);
  // The Stop hook (e.g. a -p run that ended) nudges the same call: count 2.
  const stop = await runStallWatch({
    cwd: s.project,
    stdin: {
      session_id: s.transcript.sessionId,
      transcript_path: s.transcript.path,
      hook_event_name: "Stop",
      stop_hook_active: false,
    },
    env,
  });
  assert.equal(stop.code, 2, stop.stderr);
  assert.deepEqual(await retries(s), { [s.callId]: 2 });
  const last = await finished(await watch(s, env));
  assert.equal(last.code, 0);
  assert.deepEqual(stderrLines(last), [
    `stall_watch: retry cap reached (2/2) for ${s.callId}; recovery skipped`,
  ]);
  assert.deepEqual(await retries(s), { [s.callId]: 2 });
});

Deno.test("watch leaves a turn the Stop hook just blocked to the model: no double nudge", async () => {
  await using s = await tempSession();
  await s.transcript.append(s.transcript.result(s.callId, "Tests  1 failed"));
  const running = await watch(s, { STALL_WATCH_IDLE_SECONDS: "60" });
  await watching(s);
  // Stop fired and stall-watch's Stop hook blocked: the turn goes on.
  const hook = "/home/dev/.local/bin/stall-watch";
  await s.transcript.append(
    s.transcript.stopHookSummary(hook),
    s.transcript.stopHookFeedback(hook, "stall_watch: 1 missing follow-up"),
  );
  assert.equal(await exitWithin(running, 1_500), null, "still watching");
  await s.transcript.append(s.transcript.text("The discount fix is in."));
  const result = await finished(running, 10_000);
  assert.deepEqual([result.code, result.stderr], [0, ""]);
  assert.equal(await outcomeOf(s), "followed_up");
});

Deno.test("watch ends silently on a new human prompt, an interrupt, or the deadline", async (t) => {
  await t.step("new prompt", async () => {
    await using s = await tempSession();
    await s.transcript.append(
      s.transcript.result(s.callId, "Tests  1 failed"),
    );
    const running = await watch(s, { STALL_WATCH_IDLE_SECONDS: "60" });
    await watching(s);
    await s.transcript.append(
      s.transcript.prompt("Never mind, show me git log."),
    );
    const result = await finished(running, 10_000);
    assert.deepEqual([result.code, result.stderr], [0, ""]);
    assert.equal(await outcomeOf(s), "new_turn");
  });
  await t.step("interrupt, even when the turn-end line follows", async () => {
    await using s = await tempSession();
    await s.transcript.append(
      s.transcript.result(s.callId, "Tests  1 failed"),
    );
    const running = await watch(s, { STALL_WATCH_IDLE_SECONDS: "60" });
    await watching(s);
    await s.transcript.append(
      s.transcript.interrupt(),
      s.transcript.turnDuration(),
    );
    const result = await finished(running, 10_000);
    assert.deepEqual([result.code, result.stderr], [0, ""]);
    assert.equal(await outcomeOf(s), "interrupted");
    assert.deepEqual(await retries(s), {});
  });
  await t.step("deadline", async () => {
    await using s = await tempSession();
    await s.transcript.append(
      s.transcript.result(s.callId, "Tests  1 failed"),
    );
    const started = Date.now();
    const result = await finished(
      await watch(s, {
        STALL_WATCH_IDLE_SECONDS: "60",
        STALL_WATCH_WATCH_MAX_SECONDS: "1",
      }),
      10_000,
    );
    assert.deepEqual([result.code, result.stderr], [0, ""]);
    assert.ok(Date.now() - started < 8_000);
    assert.equal(await outcomeOf(s), "deadline");
  });
});

Deno.test("watch does not call a turn that ended on a background launch a stall", async () => {
  await using s = await tempSession();
  await s.transcript.append(
    s.transcript.result(
      s.callId,
      "Command running in background with ID: b7e2k9. Output is being written to: /tmp/claude-1000/tasks/b7e2k9.output",
      { stdout: "", stderr: "", backgroundTaskId: "b7e2k9" },
    ),
  );
  const running = await watch(s, { STALL_WATCH_IDLE_SECONDS: "60" });
  await watching(s);
  await s.transcript.append(s.transcript.turnDuration());
  const result = await finished(running, 10_000);
  assert.deepEqual([result.code, result.stderr], [0, ""]);
  assert.equal(await outcomeOf(s), "healthy");
});

Deno.test("watch waits while a parallel call still runs, then nudges the last result", async () => {
  await using s = await tempSession();
  const slowId = newId("toolu_");
  const message = newId("msg_");
  await s.transcript.append(
    s.transcript.toolUse(slowId, "Bash", { command: "npm run e2e" }, message),
    s.transcript.result(s.callId, "Tests  1 failed"),
  );
  const running = await watch(s, { STALL_WATCH_IDLE_SECONDS: "0.3" });
  await watching(s);
  assert.equal(await exitWithin(running, 1_500), null, "a call still runs");
  await s.transcript.append(s.transcript.result(slowId, "e2e: 12 passed"));
  const result = await finished(running, 10_000);
  assertNudge(result, s, slowId, s.transcript.lineCount);
});

Deno.test("watch exits at once for a subagent's call and leaves the session's watcher in charge", async () => {
  await using s = await tempSession();
  await s.transcript.append(s.transcript.result(s.callId, "Tests  1 failed"));
  const main = await watch(s, { STALL_WATCH_IDLE_SECONDS: "60" });
  await watching(s);
  const subagentCall = newId("toolu_");
  const sub = await finished(
    await watch(s, {}, subagentCall, {
      agent_id: "a7f3c21",
      agent_type: "general-purpose",
    }),
    10_000,
  );
  assert.deepEqual([sub.code, sub.stderr], [0, ""]);
  assert.equal(await outcomeOf(s, subagentCall), "subagent");
  await s.transcript.append(s.transcript.turnDuration());
  assert.equal((await finished(main, 10_000)).code, 2);
});

Deno.test("watch rejects bad input with one line and writes nothing outside .claude", async () => {
  await using s = await tempSession();
  const run = (stdin: string | Record<string, unknown>, args = ["watch"]) =>
    runStallWatch({ cwd: s.project, args, stdin });
  const cases: [ProcessResult, number, RegExp][] = [
    [
      await run(""),
      1,
      /^stall-watch: Cannot parse hook input: stdin is empty$/,
    ],
    [
      await run("{"),
      1,
      /^stall-watch: Cannot parse hook input: not valid JSON/,
    ],
    [
      await run({ transcript_path: s.transcript.path }),
      1,
      /^stall-watch: Cannot parse hook input: "tool_use_id" is missing$/,
    ],
    [
      await run({ tool_use_id: s.callId, transcript_path: s.project }),
      1,
      /^stall-watch: Cannot read transcript ".*": it is a directory$/,
    ],
    [
      await run("{}", ["watch", "--idle", "5"]),
      64,
      /^stall-watch: Unexpected argument "--idle" for "watch"/,
    ],
  ];
  for (const [result, code, pattern] of cases) {
    assert.equal(result.code, code, result.stderr);
    assert.equal(stderrLines(result).length, 1, result.stderr);
    assert.match(result.stderr.trim(), pattern);
  }
  const written: string[] = [];
  for await (const entry of Deno.readDir(s.project)) {
    written.push(relative(s.project, join(s.project, entry.name)));
  }
  assert.deepEqual(written.filter((n) => n !== ".claude"), []);
});
