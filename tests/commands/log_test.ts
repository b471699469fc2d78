/**
 * `stall-watch log`: a summary of events the hook really wrote (plus the
 * rotated file and malformed lines), session filter, last N, exit codes.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { main } from "../../src/cli.ts";
import { runHook } from "../../src/hook/_hook.ts";
import { FIXTURES_DIR } from "../support/cases.ts";
import { fakeIO } from "../support/fake_io.ts";
import { runStallWatch } from "../support/hook_process.ts";
import { tempProject } from "../support/temp_project.ts";

const LOG = ".claude/stall_watch/events.jsonl";

async function cli(
  args: string[],
  cwd: string,
  env: Record<string, string> = {},
) {
  const io = fakeIO({ cwd, env });
  const code = await main(args, io);
  return { code, stdout: io.stdout.join(""), stderr: io.stderr.join("") };
}

/** Runs the hook in process on a fixture, logging to the default log. */
async function stop(
  cwd: string,
  session: string,
  fixture: string,
  nowMs: number,
) {
  const io = fakeIO({ cwd, env: { STALL_WATCH_LOG_FILE: LOG }, nowMs });
  await runHook(
    JSON.stringify({
      session_id: session,
      transcript_path: join(FIXTURES_DIR, fixture),
      hook_event_name: "Stop",
    }),
    io,
  );
}

/** s1: one stall nudged 3 times, then capped; s2: a hung MCP call nudged, a healthy stop. */
async function loggedProject(dir: string): Promise<void> {
  let t = 1_790_000_000_000;
  for (let i = 0; i < 4; i++) {
    await stop(dir, "s1", "pending_tool_use_split_lines.jsonl", t += 1000);
  }
  await stop(dir, "s2", "hung_mcp_call_github_create_issue.jsonl", t += 1000);
  await stop(dir, "s2", "healthy_text_after_results.jsonl", t += 1000);
}

Deno.test("log --json summarises the events the hook wrote, the rotated file first", async () => {
  await using project = await tempProject();
  const dir = project.dir;
  await loggedProject(dir);
  const path = join(dir, LOG);
  // Move the first three lines to the rotated file, add junk to both.
  const lines = (await Deno.readTextFile(path)).split("\n").filter(Boolean);
  await Deno.writeTextFile(
    `${path}.1`,
    lines.slice(0, 3).join("\n") + "\nnot json\n",
  );
  await Deno.writeTextFile(
    path,
    lines.slice(3).join("\n") + '\n[1,2]\n{"no_event":1}\n\n',
  );
  const { code, stdout, stderr } = await cli(
    ["log", "--json", "--last", "3"],
    dir,
  );
  assert.equal(code, 0, stderr);
  const report = JSON.parse(stdout);
  assert.deepEqual(report.files, [`${path}.1`, path]);
  assert.equal(report.events, lines.length);
  assert.equal(report.malformed, 3);
  assert.deepEqual(report.by_event, {
    stall_detected: 5,
    recovery_dispatched: 4,
    healthy_stop: 1,
    retry_cap_hit: 1,
  });
  assert.deepEqual(report.stalls_by_kind, {
    pending_tool_use: 4,
    empty_tool_result: 0,
    hung_mcp_call: 1,
    missing_followup: 0,
    subagent_no_report: 0,
    lost_tool_call: 0,
    announced_no_call: 0,
  });
  assert.deepEqual(report.sessions, [
    {
      session_id: "s2",
      stalls: 1,
      recoveries: 1,
      cap_hits: 0,
      cooldown_skips: 0,
      kill_switch: 0,
      healthy_stops: 1,
      last_ts: 1_790_000_006,
    },
    {
      session_id: "s1",
      stalls: 4,
      recoveries: 3,
      cap_hits: 1,
      cooldown_skips: 0,
      kill_switch: 0,
      healthy_stops: 0,
      last_ts: 1_790_000_004,
    },
  ]);
  assert.deepEqual(report.last.map((e: { event: string }) => e.event), [
    "retry_cap_hit",
    "recovery_dispatched",
    "healthy_stop",
  ]);
});

Deno.test("log prints tables and the last decisions in words; --session filters", async () => {
  await using project = await tempProject();
  const dir = project.dir;
  await loggedProject(dir);
  const { code, stdout } = await cli(["log"], dir);
  assert.equal(code, 0);
  assert.match(
    stdout,
    /^Event log: .+events\.jsonl\n {2}events: 11 {3}malformed lines: 0\n/,
  );
  assert.match(
    stdout,
    /\nEvents by type\n {2}event\s+count\n {2}stall_detected\s+5\n/,
  );
  assert.match(
    stdout,
    /\nStalled calls by kind\n {2}kind\s+calls\n {2}pending_tool_use\s+4\n {2}hung_mcp_call\s+1\n/,
  );
  assert.match(stdout, /\n {2}s1\s+4\s+3\s+1\s+0\s+2026-\d\d-\d\dT[\d:]+Z\n/);
  assert.match(
    stdout,
    /recovery_dispatched\s+nudged pending_tool_use Read toolu_01febJA2HSNq4ucUzZdf1fiM line 6 \(3\/3\)\n/,
  );
  assert.match(
    stdout,
    /retry_cap_hit\s+cap 3 reached for pending_tool_use Read toolu_\w+ line 6\n/,
  );
  assert.match(stdout, /healthy_stop\s+the model answered\n/);
  const only = JSON.parse(
    (await cli(["log", "--json", "--session", "s2"], dir)).stdout,
  );
  assert.equal(only.events, 3);
  assert.deepEqual(
    only.sessions.map((s: { session_id: string }) => s.session_id),
    ["s2"],
  );
});

Deno.test("a stall allowed because session state was unusable is a decision in the log: state_unavailable, with its reason", async () => {
  await using project = await tempProject();
  const dir = project.dir;
  await Deno.mkdir(join(dir, ".claude"));
  // The state folder is a file: the retry budget cannot be kept.
  await Deno.writeTextFile(join(dir, ".claude/not_a_folder"), "x");
  const io = fakeIO({
    cwd: dir,
    env: {
      STALL_WATCH_LOG_FILE: LOG,
      STALL_WATCH_STATE_DIR: ".claude/not_a_folder",
    },
    nowMs: 1_790_000_000_000,
  });
  const result = await runHook(
    JSON.stringify({
      session_id: "s1",
      transcript_path: join(FIXTURES_DIR, "pending_tool_use_split_lines.jsonl"),
      hook_event_name: "Stop",
    }),
    io,
  );
  assert.equal(result.exitCode, 0, "allowed, not nudged without a budget");
  assert.match(result.stderr, /^stall_watch: cannot use session state \(/);
  const report = JSON.parse((await cli(["log", "--json"], dir)).stdout);
  assert.deepEqual(report.by_event, {
    stall_detected: 1,
    state_unavailable: 1,
  });
  const { stdout } = await cli(["log"], dir);
  assert.match(
    stdout,
    /\n {2}\S+\s+s1\s+state_unavailable\s+allowed, not nudged: no session state \(.*not_a_folder.*\)\n/,
  );
});

Deno.test("log --since keeps recent events (relative or a date); an unknown --session is named with the latest ones", async () => {
  await using project = await tempProject();
  const dir = project.dir;
  await loggedProject(dir); // s1 at 1_790_000_001..004 s, s2 at ..005-006
  const io = fakeIO({ cwd: dir, nowMs: 1_790_000_006_000 + 2 * 60_000 });
  assert.equal(await main(["log", "--json", "--since", "3m"], io), 0);
  assert.equal(JSON.parse(io.stdout.join("")).events > 0, true);
  const later = fakeIO({ cwd: dir, nowMs: 1_790_000_006_000 + 10 * 60_000 });
  assert.equal(await main(["log", "--json", "--since", "5m"], later), 0);
  assert.equal(JSON.parse(later.stdout.join("")).events, 0);
  const iso = new Date(1_790_000_005_000).toISOString();
  const onlyS2 = await cli(["log", "--json", "--since", iso], dir);
  assert.deepEqual(
    JSON.parse(onlyS2.stdout).sessions.map((
      s: { session_id: string },
    ) => s.session_id),
    ["s2"],
  );
  const unknown = await cli(["log", "--session", "s3"], dir);
  assert.equal(unknown.code, 0);
  assert.equal(
    unknown.stderr,
    'stall-watch: note: no event of session "s3" in the log; the latest sessions in it: s2, s1\n',
  );
  const bad = await cli(["log", "--since", "soon"], dir);
  assert.equal(bad.code, 64);
  assert.match(bad.stderr, /^stall-watch: Bad value for "--since"/);
});

Deno.test("log without a log file says how to turn it on; --file must exist", async () => {
  await using project = await tempProject();
  const dir = project.dir;
  const none = await cli(["log"], dir);
  assert.equal(none.code, 0);
  assert.match(
    none.stdout,
    /^No event log yet at .+events\.jsonl\.\nTurn it on with/,
  );
  const json = JSON.parse((await cli(["log", "--json"], dir)).stdout);
  assert.equal(json.events, 0);
  assert.deepEqual(json.files, []);
  const missing = await cli(["log", "--file", "gone.jsonl"], dir);
  assert.equal(missing.code, 1);
  assert.equal(
    missing.stderr,
    'stall-watch: Cannot read event log "gone.jsonl": it does not exist\n',
  );
  await Deno.mkdir(join(dir, "d.jsonl"));
  const directory = await cli(["log", "--file", "d.jsonl"], dir);
  assert.equal(directory.code, 1);
  assert.match(
    directory.stderr,
    /^stall-watch: Cannot read event log ".+d\.jsonl": it is a directory\n$/,
  );
  for (
    const args of [["log", "--last", "0"], ["log", "--last", "x"], [
      "log",
      "extra",
    ], ["log", "--file"]]
  ) {
    const bad = await cli(args, dir);
    assert.equal(bad.code, 64, args.join(" "));
    assert.equal(bad.stderr.split("\n").length, 2);
  }
  assert.deepEqual([...Deno.readDirSync(dir)].map((e) => e.name), [
    "d.jsonl",
  ]);
});

Deno.test("log --file reads any log path, as a process under the release permissions", async () => {
  await using project = await tempProject();
  const dir = project.dir;
  await loggedProject(dir);
  const copy = join(dir, "copy.jsonl");
  await Deno.copyFile(join(dir, LOG), copy);
  const result = await runStallWatch({
    cwd: dir,
    args: ["log", "--file", copy, "--json"],
  });
  assert.equal(result.code, 0, result.stderr);
  assert.equal(JSON.parse(result.stdout).events, 11);
});
