/**
 * Guardrails, state, event log and confinement through real hook processes
 * under the release permission flags.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { HOOK_PERMISSION_FLAGS } from "../../src/shared/permissions.ts";
import { type ProcessResult, runStallWatch } from "../support/hook_process.ts";
import {
  tempFixture,
  type TempProject,
  tempProject,
} from "../support/temp_project.ts";
import { makeReadOnly } from "../support/read_only.ts";
import {
  assistantTextLine,
  pendingTranscript,
  resultLine,
  stopPayload,
} from "../support/transcripts.ts";
import { PLANTS_POSIX_LINKS, skipWhere } from "../support/platform.ts";

/** A project whose transcript ends on a Read call never answered. */
interface Project extends TempProject {
  transcript: string;
}

/** A fresh {@link Project}; disposal removes it. */
function stalledProject(): Promise<Project> {
  return tempFixture(async (dir) => {
    const transcript = join(dir, "session.jsonl");
    await Deno.writeTextFile(
      transcript,
      pendingTranscript("toolu_01StuckRead"),
    );
    return { transcript };
  });
}

function hook(
  p: Project,
  env: Record<string, string> = {},
  sessionId = "s1",
): Promise<ProcessResult> {
  return runStallWatch({
    cwd: p.dir,
    stdin: stopPayload(sessionId, p.transcript, p.dir),
    env,
  });
}

async function readJson(path: string): Promise<Record<string, unknown>> {
  return JSON.parse(await Deno.readTextFile(path));
}

async function events(
  p: Project,
  file = ".claude/stall_watch/events.jsonl",
): Promise<Record<string, unknown>[]> {
  const text = await Deno.readTextFile(join(p.dir, file));
  return text.split("\n").filter((l) => l !== "").map((l) => JSON.parse(l));
}

const LOG = { STALL_WATCH_LOG_FILE: ".claude/stall_watch/events.jsonl" };

Deno.test("a stall is nudged, then a healthy stop is logged: stall_detected -> recovery_dispatched -> healthy_stop", async () => {
  await using p = await stalledProject();
  const first = await hook(p, LOG);
  assert.equal(first.code, 2);
  await Deno.writeTextFile(
    p.transcript,
    resultLine("toolu_01StuckRead", '{ "port": 8080 }') +
      assistantTextLine("The port is now 8081."),
    { append: true },
  );
  const second = await hook(p, LOG);
  assert.deepEqual([second.code, second.stdout, second.stderr], [0, "", ""]);
  const log = await events(p);
  assert.deepEqual(log.map((e) => e.event), [
    "stall_detected",
    "recovery_dispatched",
    "healthy_stop",
  ]);
  for (const event of log) {
    const keys = Object.keys(event);
    assert.deepEqual(keys, [...keys].sort(), "keys are sorted");
    assert.equal(event.session_id, "s1");
    assert.equal(typeof event.ts, "number");
  }
  assert.deepEqual(log[0]?.signatures, [{
    kind: "pending_tool_use",
    line: 6,
    tool_name: "Read",
    tool_use_id: "toolu_01StuckRead",
  }]);
  assert.deepEqual(log[1]?.retries, { toolu_01StuckRead: 1 });
  assert.equal(log[2]?.reason, "the model answered");
  const state = await readJson(join(p.dir, ".claude/stall_watch/s1.json"));
  assert.deepEqual(state.retries, { toolu_01StuckRead: 1 });
});

Deno.test("the retry cap stops nudging a call after STALL_WATCH_MAX_RETRIES blocks", async () => {
  await using p = await stalledProject();
  const env = { ...LOG, STALL_WATCH_MAX_RETRIES: "2" };
  assert.equal((await hook(p, env)).code, 2);
  assert.equal((await hook(p, env)).code, 2);
  const capped = await hook(p, env);
  assert.equal(capped.code, 0);
  assert.equal(
    capped.stderr,
    "stall_watch: retry cap reached (2/2) for toolu_01StuckRead; recovery skipped\n",
  );
  const log = await events(p);
  assert.deepEqual(log.map((e) => e.event).slice(-2), [
    "stall_detected",
    "retry_cap_hit",
  ]);
  assert.deepEqual(log.at(-1)?.capped, [{
    kind: "pending_tool_use",
    line: 6,
    retries: 2,
    tool_name: "Read",
    tool_use_id: "toolu_01StuckRead",
  }]);
});

Deno.test("the cooldown holds back a second recovery in the same session", async () => {
  await using p = await stalledProject();
  const env = { ...LOG, STALL_WATCH_COOLDOWN_SECONDS: "3600" };
  assert.equal((await hook(p, env)).code, 2);
  const cooling = await hook(p, env);
  assert.equal(cooling.code, 0);
  assert.match(
    cooling.stderr,
    /^stall_watch: cooldown active \(\d+(\.\d+)?s of 3600s left\); recovery skipped\n$/,
  );
  const last = (await events(p)).at(-1);
  assert.equal(last?.event, "cooldown_skipped");
  assert.equal(last?.cooldown_seconds, 3600);
  assert.ok((last?.remaining_seconds as number) > 3500);
});

Deno.test("the kill switch wins over cooldown and cap, from env or marker file", async () => {
  await using p = await stalledProject();
  const byEnv = await hook(p, {
    ...LOG,
    STALL_WATCH_DISABLED: "1",
    STALL_WATCH_MAX_RETRIES: "0",
  });
  assert.equal(byEnv.code, 0);
  assert.equal(
    byEnv.stderr,
    "stall_watch: kill switch active (env STALL_WATCH_DISABLED=1); recovery skipped\n",
  );
  await Deno.writeTextFile(join(p.dir, ".claude/stall-watch.off"), "");
  const byFile = await hook(p, {
    STALL_WATCH_KILL_SWITCH_FILE: ".claude/stall-watch.off",
  });
  assert.equal(
    byFile.stderr,
    "stall_watch: kill switch active (file .claude/stall-watch.off); recovery skipped\n",
  );
  const overridden = await hook(p, {
    STALL_WATCH_KILL_SWITCH_FILE: ".claude/stall-watch.off",
    STALL_WATCH_DISABLED: "off",
  });
  assert.equal(overridden.code, 2, "a set variable wins over the file");
  const renamed = await hook(p, {
    STALL_WATCH_KILL_SWITCH_ENV: "NO_NUDGES",
    NO_NUDGES: "yes",
  });
  assert.equal(renamed.code, 0);
  assert.deepEqual((await events(p)).map((e) => e.event), [
    "stall_detected",
    "kill_switch_active",
  ]);
  // Suppressed runs never touched the retry budget.
  const state = await readJson(join(p.dir, ".claude/stall_watch/s1.json"));
  assert.deepEqual(state.retries, { toolu_01StuckRead: 1 });
});

Deno.test("the operator's kill-switch marker at an absolute path outside the project allows the stop; a network, device or drive-relative marker is refused from the environment", async () => {
  await using p = await stalledProject();
  await using elsewhere = await tempProject("stall-watch-marker-");
  const marker = join(elsewhere.dir, "stall_off");
  const absent = await hook(p, { STALL_WATCH_KILL_SWITCH_FILE: marker });
  assert.equal(absent.code, 2, "no marker yet: the stall is nudged");
  await Deno.writeTextFile(marker, "");
  const present = await hook(p, { STALL_WATCH_KILL_SWITCH_FILE: marker });
  assert.equal(present.code, 0, present.stderr);
  assert.equal(
    present.stderr,
    `stall_watch: kill switch active (file ${marker}); recovery skipped\n`,
  );
  for (
    const refused of [
      "\\\\stallwatch-host\\share\\off",
      "//stallwatch-host/share/off",
      "\\\\?\\UNC\\stallwatch-host\\share\\off",
      "C:off",
      ".claude/NUL",
    ]
  ) {
    const run = await hook(p, {
      STALL_WATCH_KILL_SWITCH_FILE: refused,
      STALL_WATCH_OUTPUT: "json",
      STALL_WATCH_MAX_RETRIES: "7",
    }, `s-${refused.length}-${refused.charCodeAt(2)}`);
    assert.equal(run.code, 0, `${refused}: ${run.stderr}`);
    const output = JSON.parse(run.stdout);
    assert.equal(output.decision, "block", refused);
    assert.match(
      output.systemMessage,
      /env STALL_WATCH_KILL_SWITCH_FILE: must not be .*, which is never looked at/,
      refused,
    );
  }
});

/**
 * The runs of a race that did not get the session's lock within its budget
 * (3 s): each allowed its stop with the one line that says so, counting
 * nothing (fail open). On an idle machine there are none; 16 hooks under
 * Wine on a loaded machine left one (a Windows lane run). At most half may.
 */
function lockTimeouts(runs: ProcessResult[]): ProcessResult[] {
  const timedOut = runs.filter((r) =>
    r.code === 0 && /cannot use session state \(Timed out after/.test(r.stderr)
  );
  assert.ok(timedOut.length <= runs.length / 2, `${timedOut.length} timeouts`);
  for (const r of timedOut) {
    assert.equal(r.stderr.trimEnd().split("\n").length, 1, r.stderr);
  }
  return timedOut;
}

Deno.test("16 concurrent hooks of one session on different calls each get exactly one count (a hook that waits out the lock budget allows, counting nothing)", async () => {
  await using p = await stalledProject();
  const runs = await Promise.all(Array.from({ length: 16 }, async (_, i) => {
    const transcript = join(p.dir, `t${i}.jsonl`);
    await Deno.writeTextFile(transcript, pendingTranscript(`toolu_race${i}`));
    return runStallWatch({
      cwd: p.dir,
      stdin: stopPayload("shared", transcript, p.dir),
      env: LOG,
    });
  }));
  const timedOut = lockTimeouts(runs);
  const blocked = runs.flatMap((r, i) => r.code === 2 ? [i] : []);
  assert.equal(
    blocked.length + timedOut.length,
    16,
    runs.map((r) => `${r.code}: ${r.stderr.split("\n")[0]}`).join("\n"),
  );
  const state = await readJson(
    join(p.dir, ".claude/stall_watch/shared.json"),
  );
  // No update lost, none counted twice.
  assert.deepEqual(
    state.retries,
    Object.fromEntries(blocked.map((i) => [`toolu_race${i}`, 1])),
  );
  const log = await events(p); // every line parses: none interleaved
  // Every hook logs its stall and one decision: a nudge, or the allow
  // of a hook that could not get the lock.
  assert.equal(log.length, 32);
  assert.equal(
    log.filter((e) => e.event === "recovery_dispatched").length,
    blocked.length,
  );
  assert.equal(
    log.filter((e) => e.event === "state_unavailable").length,
    timedOut.length,
  );
});

Deno.test("16 concurrent hooks on one call stop at the cap: exactly 7 nudges, 9 cap hits", async () => {
  await using p = await stalledProject();
  const runs = await Promise.all(
    Array.from(
      { length: 16 },
      () => hook(p, { ...LOG, STALL_WATCH_MAX_RETRIES: "7" }),
    ),
  );
  // Of the hooks that got the lock, the first 7 nudge and the rest hit
  // the cap (all 16 on an idle machine).
  const timedOut = lockTimeouts(runs);
  const locked = 16 - timedOut.length;
  assert.equal(runs.filter((r) => r.code === 2).length, 7);
  const capped = runs.filter((r) => r.code === 0 && !timedOut.includes(r));
  assert.equal(capped.length, locked - 7);
  for (const r of capped) {
    assert.match(r.stderr, /^stall_watch: retry cap reached \(7\/7\)/);
  }
  const state = await readJson(join(p.dir, ".claude/stall_watch/s1.json"));
  assert.deepEqual(state.retries, { toolu_01StuckRead: 7 });
  const counts: Record<string, number> = {};
  for (const e of await events(p)) {
    counts[e.event as string] = (counts[e.event as string] ?? 0) + 1;
  }
  assert.deepEqual(counts, {
    stall_detected: 16,
    recovery_dispatched: 7,
    ...(locked > 7 ? { retry_cap_hit: locked - 7 } : {}),
    ...(timedOut.length ? { state_unavailable: timedOut.length } : {}),
  });
});

Deno.test("a corrupt state file is recovered from, not fatal", async () => {
  await using p = await stalledProject();
  await Deno.mkdir(join(p.dir, ".claude/stall_watch"), { recursive: true });
  await Deno.writeTextFile(
    join(p.dir, ".claude/stall_watch/s1.json"),
    "\0\0garbage{",
  );
  const result = await hook(p);
  assert.equal(result.code, 2);
  const state = await readJson(join(p.dir, ".claude/stall_watch/s1.json"));
  assert.deepEqual(state.retries, { toolu_01StuckRead: 1 });
});

Deno.test("a traversal session id stays inside the state folder", async () => {
  await using p = await stalledProject();
  const result = await hook(p, {}, "../../../escaped");
  assert.equal(result.code, 2);
  const names = [];
  for await (
    const entry of Deno.readDir(join(p.dir, ".claude/stall_watch"))
  ) names.push(entry.name);
  assert.deepEqual(names.sort(), [
    ".._.._.._escaped.json",
    ".._.._.._escaped.lock",
    ".gitignore",
    ".last-prune",
  ]);
});

Deno.test("a state folder or log path outside .claude from env is refused and the default used", async () => {
  await using p = await stalledProject();
  await using elsewhere = await tempProject();
  const outside = elsewhere.dir;
  const env = {
    STALL_WATCH_STATE_DIR: outside,
    STALL_WATCH_LOG_FILE: join(outside, "events.jsonl"),
    STALL_WATCH_OUTPUT: "json",
  };
  const result = await hook(p, env);
  assert.equal(result.code, 0);
  const output = JSON.parse(result.stdout);
  assert.equal(output.decision, "block");
  assert.match(
    output.systemMessage,
    /Refusing state folder ".*": stall-watch only writes inside .*\.claude/,
  );
  assert.match(output.systemMessage, /Refusing event log/);
  for await (const _ of Deno.readDir(outside)) {
    assert.fail("nothing may be written outside .claude");
  }
  const state = await readJson(join(p.dir, ".claude/stall_watch/s1.json"));
  assert.deepEqual(state.retries, { toolu_01StuckRead: 1 });
  assert.equal((await events(p)).length, 2, "the default log was used");
});

Deno.test(
  skipWhere(
    "a symlink inside .claude that leads outside is refused and the stop allowed",
    PLANTS_POSIX_LINKS,
  ),
  async () => {
    await using p = await stalledProject();
    await using elsewhere = await tempProject();
    const outside = elsewhere.dir;
    await Deno.mkdir(join(p.dir, ".claude"));
    await Deno.symlink(outside, join(p.dir, ".claude/stall_watch"));
    const result = await hook(p, LOG);
    assert.equal(result.code, 0);
    const lines = result.stderr.trim().split("\n");
    assert.match(
      lines[0] as string,
      /^stall_watch: cannot use session state \(Refusing state folder .*is a symlink to .*outside .*\); allowing the stop/,
    );
    assert.match(
      lines[1] as string,
      /^stall_watch: event log not written \(Refusing event log folder/,
    );
    for await (const _ of Deno.readDir(outside)) {
      assert.fail("nothing may be written through the symlink");
    }
  },
);

Deno.test("a read-only .claude allows the stop with one line instead of nudging without a budget", async (t) => {
  await using p = await stalledProject();
  await Deno.mkdir(join(p.dir, ".claude"));
  await using readOnly = await makeReadOnly(join(p.dir, ".claude"));
  if (!readOnly) {
    await t.step({
      name: "read-only folders cannot be made here",
      ignore: true,
      fn: () => {},
    });
    return;
  }
  const result = await hook(p);
  assert.equal(result.code, 0);
  assert.match(
    result.stderr,
    /^stall_watch: cannot use session state \(.+\); allowing the stop rather than nudging without a retry budget\n$/,
  );
});

Deno.test("a broken config is shown to the user once per session through systemMessage", async () => {
  await using p = await stalledProject();
  await Deno.mkdir(join(p.dir, ".claude"));
  await Deno.writeTextFile(
    join(p.dir, ".claude/stall-watch.jsonc"),
    '{\n  "max_retries": "three",\n}',
  );
  await Deno.writeTextFile(
    p.transcript,
    resultLine("toolu_01StuckRead", "8080") + assistantTextLine("All done."),
    { append: true },
  );
  const first = await hook(p);
  assert.equal(first.code, 0);
  assert.deepEqual(JSON.parse(first.stdout), {
    systemMessage: "stall-watch config problem (defaults used instead): " +
      '.claude/stall-watch.jsonc:2:18: "max_retries" must be an integer, got string',
  });
  assert.equal((await hook(p)).stdout, "", "shown once per session");
  assert.notEqual((await hook(p, {}, "another-session")).stdout, "");
});

Deno.test("in context mode a block tells the user once, beside the report, that the project's recovery texts were set aside", async () => {
  await using p = await stalledProject();
  await Deno.mkdir(join(p.dir, ".claude"));
  await Deno.writeTextFile(
    join(p.dir, ".claude/stall-watch.jsonc"),
    '{"output": "context", "recovery": {"default_nudge": "{file_path}"}}',
  );
  const first = await hook(p);
  assert.equal(first.code, 0, first.stderr);
  const output = JSON.parse(first.stdout);
  const [report, notice] = output.systemMessage.split(
    "\nstall-watch config problem",
  );
  assert.match(
    report,
    /^stall_watch: 1 pending tool_use in .*session\.jsonl\n/,
  );
  assert.equal(
    notice,
    " (defaults used instead): .claude/stall-watch.jsonc:1:53: the project's " +
      "config may not set recovery texts (recovery.default_nudge): they would " +
      'reach the model as stall-watch\'s own words; using the "default" ' +
      "preset's (set them in your own config, named by STALL_WATCH_CONFIG " +
      "outside the project)",
  );
  assert.doesNotMatch(
    output.hookSpecificOutput.additionalContext,
    /\{file_path\}|stall-watch config/,
  );
  const second = JSON.parse((await hook(p)).stdout);
  assert.doesNotMatch(second.systemMessage, /config problem/, "once");
});

Deno.test("the event log rotates at its size limit, keeping one previous file", async () => {
  await using p = await stalledProject();
  await Deno.mkdir(join(p.dir, ".claude"));
  await Deno.writeTextFile(
    join(p.dir, ".claude/stall-watch.jsonc"),
    '{"event_log": {"enabled": true, "max_bytes": 4096}, "max_retries": 0}',
  );
  for (let i = 0; i < 12; i++) assert.equal((await hook(p)).code, 0);
  const current = await events(p);
  const previous = await events(p, ".claude/stall_watch/events.jsonl.1");
  assert.ok(previous.length > 0 && current.length > 0);
  assert.ok(
    (await Deno.stat(join(p.dir, ".claude/stall_watch/events.jsonl"))).size <=
      4096,
  );
  assert.ok(
    (await Deno.stat(join(p.dir, ".claude/stall_watch/events.jsonl.1")))
      .size <= 4096,
  );
  assert.equal(current.at(-1)?.event, "retry_cap_hit");
});

Deno.test("under the release permissions a write outside .claude is impossible, not merely avoided", async () => {
  await using project = await tempProject();
  await Deno.mkdir(join(project.dir, ".claude"));
  const script = fileURLToPath(
    new URL("../support/try_write.ts", import.meta.url),
  );
  const output = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      ...HOOK_PERMISSION_FLAGS,
      script,
      ".claude/inside.txt",
      "outside.txt",
      "../outside.txt",
      "/tmp/sw-outside.txt",
    ],
    cwd: project.dir,
    stdout: "piped",
  }).output();
  assert.deepEqual(JSON.parse(new TextDecoder().decode(output.stdout)), {
    ".claude/inside.txt": "written",
    "outside.txt": "NotCapable",
    "../outside.txt": "NotCapable",
    "/tmp/sw-outside.txt": "NotCapable",
  });
});
