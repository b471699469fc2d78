/**
 * The watchdog's edges in process: payload parsing, the per-session marker,
 * and whole watches on a fake clock (the default 90 s idle window and 600 s
 * deadline, without waiting for them).
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { main } from "../../src/cli.ts";
import { ConfinementError } from "../../src/confined/confine.ts";
import { InputError } from "../../src/shared/errors.ts";
import {
  readWatchPayload,
  unattendedRun,
} from "../../src/watchdog/_watch_input.ts";
import { claimWatch, isSuperseded } from "../../src/watchdog/_watch_marker.ts";
import { API_ERROR_NOTE, runWatch } from "../../src/watchdog/watchdog.ts";
import { FIXTURES_DIR } from "../support/cases.ts";
import { fakeIO } from "../support/fake_io.ts";
import {
  tempFixture,
  type TempProject,
  tempProject,
} from "../support/temp_project.ts";
import {
  newId,
  postToolUsePayload,
  SessionTranscript,
} from "../support/watch_session.ts";

Deno.test("readWatchPayload() reads the PostToolUse fields and requires tool_use_id", () => {
  const input = readWatchPayload(JSON.stringify({
    session_id: "s1",
    transcript_path: "/t.jsonl",
    hook_event_name: "PostToolUse",
    tool_name: "Bash",
    tool_use_id: "toolu_1",
    tool_response: { stdout: "x".repeat(100_000) },
    prompt_id: "p1",
  })).input();
  assert.deepEqual(input, {
    sessionId: "s1",
    hookEventName: "PostToolUse",
    transcriptPath: "/t.jsonl",
    toolUseId: "toolu_1",
    toolName: "Bash",
    promptId: "p1",
    agentId: null,
    interrupted: false,
  });
  assert.equal(
    readWatchPayload(
      '{"transcript_path":"/t","tool_use_id":"t","agent_id":"a7f3c21"}',
    ).input().agentId,
    "a7f3c21",
  );
  assert.throws(
    () => readWatchPayload('{"transcript_path":"/t","tool_use_id":7}').input(),
    (e: unknown) =>
      e instanceof InputError &&
      e.message ===
        'Cannot parse hook input: "tool_use_id" must be a non-empty string, got a number',
  );
});

Deno.test("claimWatch() makes the newest watcher of a session the only one", async () => {
  await using project = await tempProject();
  const first = claimWatch(
    project.dir,
    ".claude/stall_watch",
    "s/1",
    "A",
    1e12,
  );
  assert.equal(
    first.path,
    join(project.dir, ".claude/stall_watch/watch/s_1.json"),
  );
  assert.equal(isSuperseded(first), false);
  const second = claimWatch(
    project.dir,
    ".claude/stall_watch",
    "s/1",
    "A",
    1e12,
  );
  assert.equal(isSuperseded(first), true, "even for the same call");
  assert.equal(isSuperseded(second), false);
  const other = claimWatch(
    project.dir,
    ".claude/stall_watch",
    "s2",
    "B",
    1e12,
  );
  assert.equal(isSuperseded(second), false, "sessions are separate");
  await Deno.writeTextFile(other.path, "{not json");
  assert.equal(
    isSuperseded(other),
    false,
    "a corrupt marker proves nothing",
  );
  await Deno.remove(other.path);
  assert.equal(isSuperseded(other), false);
  assert.throws(
    () => claimWatch(project.dir, "../elsewhere", "s1", "A", 1e12),
    ConfinementError,
  );
});

/** A project and a transcript whose Bash call has been answered; disposal removes it. */
function answeredSession(): Promise<
  TempProject & { t: SessionTranscript; id: string }
> {
  return tempFixture(async (dir) => {
    const t = new SessionTranscript(dir);
    const id = newId("toolu_");
    await t.append(
      t.prompt("Run the tests."),
      t.toolUse(id, "Bash", { command: "npm test" }),
      t.result(id, "Tests  48 passed (48)"),
    );
    return { t, id };
  });
}

Deno.test("runWatch() with the defaults nudges after 30 quiet seconds, looking once a second", async () => {
  await using s = await answeredSession();
  let sleeps = 0;
  const io = fakeIO({ cwd: s.dir, onSleep: () => void sleeps++ });
  const start = io.now();
  const result = await runWatch(
    JSON.stringify(postToolUsePayload(s.t, s.id, "Bash")),
    io,
  );
  assert.equal(result.exitCode, 2);
  assert.match(result.stderr, /^stall_watch: 1 missing follow-up in /);
  assert.match(result.stderr, /at line 3 \[missing follow-up\]/);
  assert.equal(io.now() - start, 30_000);
  assert.equal(sleeps, 300, "a look each second, the marker every 100 ms");
});

Deno.test("runWatch() gives up silently at the deadline while the result never arrives", async () => {
  await using s = await answeredSession();
  const pending = newId("toolu_");
  await s.t.append(s.t.toolUse(pending, "Bash", { command: "sleep 900" }));
  const io = fakeIO({ cwd: s.dir });
  const start = io.now();
  const result = await runWatch(
    JSON.stringify(postToolUsePayload(s.t, pending, "Bash")),
    io,
  );
  assert.deepEqual(result, { exitCode: 0, stdout: "", stderr: "" });
  assert.equal(io.now() - start, 600_000);
});

Deno.test("unattendedRun() tells -p and SDK runs from interactive ones by Claude Code's environment", () => {
  // As Claude Code 2.1.332 sets them for its hooks.
  assert.equal(
    unattendedRun({
      CLAUDE_CODE_ENTRYPOINT: "sdk-cli",
      CLAUDE_CODE_SESSION_ATTENDED: "0",
    }),
    "CLAUDE_CODE_SESSION_ATTENDED=0",
  );
  assert.equal(
    unattendedRun({ CLAUDE_CODE_ENTRYPOINT: "sdk-ts" }),
    "CLAUDE_CODE_ENTRYPOINT=sdk-ts",
  );
  assert.equal(
    unattendedRun({
      CLAUDE_CODE_ENTRYPOINT: "cli",
      CLAUDE_CODE_SESSION_ATTENDED: "1",
    }),
    null,
  );
  assert.equal(unattendedRun({}), null, "an older Claude Code: watch");
});

Deno.test("runWatch() in a -p run exits 0 at once: no sleep, no marker, no retry spent", async () => {
  await using s = await answeredSession();
  let sleeps = 0;
  const io = fakeIO({
    cwd: s.dir,
    onSleep: () => void sleeps++,
    env: {
      CLAUDE_CODE_ENTRYPOINT: "sdk-cli",
      CLAUDE_CODE_SESSION_ATTENDED: "0",
      STALL_WATCH_LOG_FILE: ".claude/stall_watch/events.jsonl",
    },
  });
  const result = await runWatch(
    JSON.stringify(postToolUsePayload(s.t, s.id, "Bash")),
    io,
  );
  assert.deepEqual(result, { exitCode: 0, stdout: "", stderr: "" });
  assert.equal(sleeps, 0);
  const stateDir = join(s.dir, ".claude/stall_watch");
  const names = [...Deno.readDirSync(stateDir)].map((e) => e.name).sort();
  assert.deepEqual(
    names,
    [".gitignore", "events.jsonl"],
    "no marker, no session state",
  );
  const event = JSON.parse(
    Deno.readTextFileSync(join(stateDir, "events.jsonl")).trim(),
  );
  assert.equal(event.event, "watch_finished");
  assert.equal(event.outcome, "unattended");
});

Deno.test("runWatch() on a PostToolUseFailure the user interrupted exits 0 at once", async () => {
  await using s = await answeredSession();
  let sleeps = 0;
  const io = fakeIO({ cwd: s.dir, onSleep: () => void sleeps++ });
  const result = await runWatch(
    JSON.stringify(
      postToolUsePayload(s.t, s.id, "Bash", {
        hook_event_name: "PostToolUseFailure",
        error: "Interrupted by user",
        is_interrupt: true,
      }),
    ),
    io,
  );
  assert.deepEqual(result, { exitCode: 0, stdout: "", stderr: "" });
  assert.equal(sleeps, 0);
});

Deno.test("runWatch() watches a failed tool call (PostToolUseFailure) like a successful one", async () => {
  await using project = await tempProject();
  const t = new SessionTranscript(project.dir);
  const id = newId("toolu_");
  await t.append(
    t.prompt("Query the orders table."),
    t.toolUse(id, "mcp__db__query", { sql: "select 1" }),
    t.result(id, "MCP error -32001: Request timed out"),
  );
  const io = fakeIO({ cwd: project.dir });
  const result = await runWatch(
    JSON.stringify(
      postToolUsePayload(t, id, "mcp__db__query", {
        hook_event_name: "PostToolUseFailure",
        error: "MCP error -32001: Request timed out",
        is_interrupt: false,
      }),
    ),
    io,
  );
  assert.equal(result.exitCode, 2);
  assert.match(result.stderr, /1 missing follow-up/);
});

Deno.test("runWatch() wakes a turn that an API error ended after the result, saying the tool ran", async () => {
  await using s = await answeredSession();
  await s.t.append(s.t.apiRequest(), s.t.apiError());
  const io = fakeIO({
    cwd: s.dir,
    nowMs: Date.now(),
    env: { STALL_WATCH_LOG_FILE: ".claude/stall_watch/events.jsonl" },
  });
  const start = io.now();
  const result = await runWatch(
    JSON.stringify(postToolUsePayload(s.t, s.id, "Bash")),
    io,
  );
  assert.equal(result.exitCode, 2);
  assert.match(result.stderr, /^stall_watch: 1 missing follow-up in /);
  assert.ok(result.stderr.endsWith(API_ERROR_NOTE), result.stderr);
  assert.equal(io.now() - start, 30_000, "after the idle window");
  const events = Deno.readTextFileSync(
    join(s.dir, ".claude/stall_watch/events.jsonl"),
  ).trim().split("\n").map((line) => JSON.parse(line));
  const detected = events.find((e) => e.event === "stall_detected");
  assert.equal(detected.api_error, true);
  // It spent the call's retry budget, the one the Stop hook draws on.
  const capped = fakeIO({
    cwd: s.dir,
    nowMs: Date.now(),
    env: { STALL_WATCH_MAX_RETRIES: "1" },
  });
  const again = await runWatch(
    JSON.stringify(postToolUsePayload(s.t, s.id, "Bash")),
    capped,
  );
  assert.equal(again.exitCode, 0);
  assert.match(again.stderr, /^stall_watch: retry cap reached \(1\/1\)/);
});

Deno.test("runWatch() does not call a slow model a stall while its request is open", async () => {
  await using s = await answeredSession();
  await s.t.append(s.t.apiRequest());
  let sleeps = 0;
  const io = fakeIO({
    cwd: s.dir,
    onSleep: async () => {
      // The model answers after 5 minutes, well past the 30 s window.
      if (++sleeps === 3000) await s.t.append(s.t.text("All 48 pass."));
    },
  });
  const result = await runWatch(
    JSON.stringify(postToolUsePayload(s.t, s.id, "Bash")),
    io,
  );
  assert.deepEqual(result, { exitCode: 0, stdout: "", stderr: "" });
  assert.equal(sleeps, 3000);
  // Without the request line, the same silence is a stall at 30 s.
  await using bare = await answeredSession();
  const io2 = fakeIO({ cwd: bare.dir });
  const start = io2.now();
  const nudged = await runWatch(
    JSON.stringify(postToolUsePayload(bare.t, bare.id, "Bash")),
    io2,
  );
  assert.equal(nudged.exitCode, 2);
  assert.equal(io2.now() - start, 30_000);
});

Deno.test("runWatch() counts an open request's silence once Claude Code's own timeout (API_TIMEOUT_MS) passed", async () => {
  await using s = await answeredSession();
  await s.t.append(s.t.apiRequest());
  const io = fakeIO({ cwd: s.dir, env: { API_TIMEOUT_MS: "120000" } });
  const start = io.now();
  const result = await runWatch(
    JSON.stringify(postToolUsePayload(s.t, s.id, "Bash")),
    io,
  );
  assert.equal(result.exitCode, 2);
  assert.equal(io.now() - start, 120_000);
});

Deno.test("stall-watch watch from a terminal is a usage error", async () => {
  await using project = await tempProject();
  const io = fakeIO({ cwd: project.dir, stdinIsTerminal: true });
  assert.equal(await main(["watch"], io), 64);
  assert.equal(io.stderr.join("").trim().split("\n").length, 1);
  assert.match(io.stderr.join(""), /reads a PostToolUse payload on stdin/);
});

/**
 * The lines of real 2.1.145's file after an echo call whose answer failed
 * with HTTP 500, split where the issue measured the watcher's start: only
 * the metadata before the prompt was on file (the tool_use and result
 * landed about 65 ms later).
 */
function racedTranscript(): { before: string; after: string; id: string } {
  const text = Deno.readTextFileSync(
    join(FIXTURES_DIR, "real", "real_echo_then_api_error_2.1.145.jsonl"),
  );
  const lines = text.split("\n").filter((l) => l !== "");
  const prompt = lines.findIndex((l) => l.includes('"type":"user"'));
  const id = /"tool_use_id":"(toolu_[^"]+)"/.exec(text)?.[1] as string;
  return {
    before: lines.slice(0, prompt).join("\n") + "\n",
    after: lines.slice(prompt).join("\n") + "\n",
    id,
  };
}

Deno.test("runWatch() follows a call whose lines land after the watcher started (2.1.145 starts PostToolUse early) and wakes the API error", async () => {
  await using project = await tempProject();
  const { before, after, id } = racedTranscript();
  const path = join(project.dir, "session.jsonl");
  await Deno.writeTextFile(path, before);
  let appended = false;
  const io = fakeIO({
    cwd: project.dir,
    nowMs: Date.now(),
    env: { STALL_WATCH_IDLE_SECONDS: "2" },
    // After the watcher's first look (it saw only metadata), the turn's
    // lines arrive: the prompt (no prompt_id in 2.1.145's payload), the
    // call, its result, the synthetic API error.
    onSleep: async () => {
      if (appended) return;
      appended = true;
      await Deno.writeTextFile(path, after, { append: true });
    },
  });
  const payload = {
    session_id: "b3ca133f-ea67-4fa8-a9d0-1d7ea24aa5ab",
    transcript_path: path,
    cwd: project.dir,
    permission_mode: "default",
    hook_event_name: "PostToolUse",
    tool_name: "mcp__stub__echo",
    tool_input: { text: "forty-two" },
    tool_response: [{ type: "text", text: "forty-two" }],
    tool_use_id: id,
  };
  const result = await runWatch(JSON.stringify(payload), io);
  assert.equal(appended, true);
  assert.equal(result.exitCode, 2, result.stderr);
  assert.match(result.stderr, /^stall_watch: 1 missing follow-up in /);
  assert.ok(result.stderr.includes(`(id=${id})`), result.stderr);
  assert.ok(result.stderr.endsWith(API_ERROR_NOTE), result.stderr);
});

/**
 * Real 2.1.145 (interactive, a PostToolUse hook returning `continue:
 * false`), in the order CI once saw it land: the model's text and call and
 * the echo result first (the result on line 3), then, seconds later, the
 * session's metadata, the prompt line, the hook's stop record and the end
 * of the turn. Split into what was on file at first and the rest.
 */
function promptLateTranscript(): { first: string; rest: string; id: string } {
  const text = Deno.readTextFileSync(
    join(
      FIXTURES_DIR,
      "real",
      "real_hook_stopped_prompt_line_late_2.1.145.jsonl",
    ),
  );
  const lines = text.split("\n").filter((l) => l !== "");
  const early = lines.filter((l) =>
    l.startsWith('{"parentUuid"') &&
    (l.includes('"type":"assistant"') || l.includes('"tool_result"'))
  );
  const id = /"tool_use_id":"(toolu_[^"]+)"/.exec(text)?.[1] as string;
  return {
    first: early.join("\n") + "\n",
    rest: lines.filter((l) => !early.includes(l)).join("\n") + "\n",
    id,
  };
}

/** Where these watches log their events, relative to the project. */
const LOG = ".claude/stall_watch/events.jsonl";

/** The PostToolUse payload of the echo call in `promptLateTranscript()`. */
function echoPayload(path: string, cwd: string, id: string): string {
  return JSON.stringify({
    session_id: "0c0a8b7e-2f55-4f0e-9a35-6f0b7f0f6d61",
    transcript_path: path,
    cwd,
    permission_mode: "default",
    hook_event_name: "PostToolUse",
    tool_name: "mcp__stub__echo",
    tool_input: { text: "forty-two" },
    tool_response: [{ type: "text", text: "forty-two" }],
    tool_use_id: id,
  });
}

Deno.test("runWatch() waits for a turn whose prompt line lands seconds after its result (2.1.145 under load), and leaves the turn another hook ended alone", async () => {
  await using project = await tempProject();
  const { first, rest, id } = promptLateTranscript();
  const path = join(project.dir, "session.jsonl");
  await Deno.writeTextFile(path, first);
  assert.equal(first.split("\n").length - 1, 3, "the result is on line 3");
  const start = Date.now();
  let appendedAt = -1;
  const io = fakeIO({
    cwd: project.dir,
    nowMs: start,
    env: { STALL_WATCH_IDLE_SECONDS: "2", STALL_WATCH_LOG_FILE: LOG },
    // The rest lands 6 s after the result: three idle windows of quiet.
    onSleep: async () => {
      if (appendedAt >= 0 || io.now() - start < 6_000) return;
      appendedAt = io.now() - start;
      await Deno.writeTextFile(path, rest, { append: true });
    },
  });
  const result = await runWatch(echoPayload(path, project.dir, id), io);
  assert.ok(appendedAt >= 6_000, "the rest landed while the watcher waited");
  assert.equal(result.exitCode, 0, result.stderr);
  assert.equal(result.stderr, "");
  const events = (await Deno.readTextFile(join(project.dir, LOG)))
    .split("\n").filter((l) => l !== "").map((l) => JSON.parse(l));
  assert.deepEqual(
    events.filter((e) => e.event === "watch_finished").map((e) => e.outcome),
    ["hook_stopped"],
  );
});

Deno.test("runWatch() counts the idle window again from a late prompt line's landing, and wakes a result nobody answered", async () => {
  await using project = await tempProject();
  const { first, rest, id } = promptLateTranscript();
  // The same late lines without the policy hook's record and the turn's
  // end: the result is unanswered once the file has caught up.
  const late = rest.split("\n").filter((l) =>
    !l.includes("hook_stopped_continuation") && !l.includes("turn_duration")
  ).join("\n");
  const path = join(project.dir, "session.jsonl");
  await Deno.writeTextFile(path, first);
  const start = Date.now();
  let appendedAt = -1;
  const io = fakeIO({
    cwd: project.dir,
    nowMs: start,
    env: { STALL_WATCH_IDLE_SECONDS: "2" },
    onSleep: async () => {
      if (appendedAt >= 0 || io.now() - start < 6_000) return;
      appendedAt = io.now() - start;
      await Deno.writeTextFile(path, late, { append: true });
    },
  });
  const result = await runWatch(echoPayload(path, project.dir, id), io);
  assert.equal(result.exitCode, 2, result.stderr);
  // The prompt landed after it: the result is still on line 3.
  assert.match(result.stderr, /at line 3 \[missing follow-up\]/);
  const judgedAt = io.now() - start;
  assert.ok(
    judgedAt >= appendedAt + 2_000 && judgedAt < appendedAt + 3_000,
    `judged ${judgedAt - appendedAt} ms after the prompt landed`,
  );
});

Deno.test("runWatch() judges a result whose prompt line never lands once the quiet outlasts the 10 s grace", async () => {
  await using project = await tempProject();
  const { first, id } = promptLateTranscript();
  const path = join(project.dir, "session.jsonl");
  await Deno.writeTextFile(path, first);
  const io = fakeIO({
    cwd: project.dir,
    env: { STALL_WATCH_IDLE_SECONDS: "2" },
  });
  const start = io.now();
  const result = await runWatch(echoPayload(path, project.dir, id), io);
  assert.equal(result.exitCode, 2, result.stderr);
  assert.match(result.stderr, /at line 3 \[missing follow-up\]/);
  assert.equal(io.now() - start, 10_000);
});

Deno.test("runWatch() exits 0 at once, spending nothing, where Claude Code cannot deliver its wake-up (asyncRewake before 2.1.84)", async () => {
  await using project = await tempProject();
  // Real 2.0.76 lines: the echo result unanswered after an API error, the
  // turn a watcher on 2.1.84+ wakes (exit 2) after its idle window.
  const text = Deno.readTextFileSync(
    join(FIXTURES_DIR, "real", "real_api_error_after_tool_result_2.0.76.jsonl"),
  );
  const path = join(project.dir, "session.jsonl");
  await Deno.writeTextFile(path, text);
  const id = /"tool_use_id":"(toolu_[^"]+)"/.exec(text)?.[1] as string;
  let sleeps = 0;
  const io = fakeIO({
    cwd: project.dir,
    nowMs: Date.now(),
    env: { STALL_WATCH_LOG_FILE: ".claude/stall_watch/events.jsonl" },
    onSleep: () => void sleeps++,
  });
  const payload = {
    session_id: "24e4b1ff-68ab-4533-89bf-7969ed000000",
    transcript_path: path,
    cwd: project.dir,
    permission_mode: "default",
    hook_event_name: "PostToolUse",
    tool_name: "mcp__stub__echo",
    tool_input: { text: "forty-two" },
    tool_response: [{ type: "text", text: "forty-two" }],
    tool_use_id: id,
  };
  const result = await runWatch(JSON.stringify(payload), io);
  assert.deepEqual(result, { exitCode: 0, stdout: "", stderr: "" });
  assert.equal(sleeps, 0, "it did not wait");
  const events = Deno.readTextFileSync(
    join(project.dir, ".claude/stall_watch/events.jsonl"),
  ).trim().split("\n").map((line) => JSON.parse(line));
  assert.deepEqual(events.map((e) => e.event), [
    "watch_started",
    "watch_finished",
  ]);
  const finished = events.at(-1);
  assert.equal(finished.outcome, "client_unsupported");
  assert.match(finished.reason, /^Claude Code 2\.0\.76 cannot deliver/);
  // The same turn written by a release with asyncRewake is watched and woken.
  const rewritten = text.replaceAll('"version":"2.0.76"', '"version":"2.1.84"');
  await Deno.writeTextFile(path, rewritten);
  const woken = await runWatch(
    JSON.stringify(payload),
    fakeIO({ cwd: project.dir, nowMs: Date.now() }),
  );
  assert.equal(woken.exitCode, 2, woken.stderr);
});
