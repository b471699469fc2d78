/**
 * `stall-watch audit`: exact counts on a hand-built projects folder and on
 * a generated multi-session corpus, worker pool and fallback, `--since`,
 * the human report, the progress bar and exit codes.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { auditFiles } from "../../src/audit/_audit.ts";
import { auditFilesInParallel } from "../../src/audit/audit_pool.ts";
import { main } from "../../src/cli.ts";
import { signatureData } from "../../src/detection/classify.ts";
import { findTranscripts } from "../../src/transcript/transcript_files.ts";
import { writeCorpusSync } from "../bench/gen_transcript.ts";
import { fakeIO } from "../support/fake_io.ts";
import { runStallWatch } from "../support/hook_process.ts";
import { assertSnapshot } from "../support/snapshot.ts";
import { tempProject } from "../support/temp_project.ts";
import { referenceVerdicts } from "../support/reference_scan.ts";
import { TranscriptBuilder } from "../support/transcript_builder.ts";
import { ON_WINDOWS, symlinkIfPossible } from "../support/platform.ts";

async function cli(
  args: string[],
  cwd: string,
  overrides: Record<string, unknown> = {},
  env: Record<string, string> = {},
) {
  const io = { ...fakeIO({ cwd, env }), ...overrides };
  const code = await main(args, io);
  return { code, stdout: io.stdout.join(""), stderr: io.stderr.join("") };
}

async function write(path: string, builder: TranscriptBuilder): Promise<void> {
  await Deno.mkdir(join(path, ".."), { recursive: true });
  await Deno.writeTextFile(path, builder.toString());
}

/** A projects folder whose every stall is known, with its line. */
async function handBuiltCorpus(root: string) {
  const a = new TranscriptBuilder("sess-a");
  const aT1 = a.prompt("Run the tests.");
  const killed = a.call("m1", "toolu_killed", "Bash");
  const aT2 = a.prompt("File the bug.");
  const hung = a.call("m2", "toolu_gh", "mcp__github__create_issue");
  const aT3 = a.prompt("Fetch the docs.");
  a.call("m3", "toolu_web", "WebFetch");
  const empty = a.result("toolu_web", "");
  a.prompt("Thanks.");
  // The subagent below returned to this session (its file has no end).
  a.call("m4", "toolu_task", "Task", { prompt: "Find the readers." });
  a.result("toolu_task", [{ type: "text", text: "src/line_reader.ts" }], {
    toolUseResult: { status: "completed", agentId: "x1", content: [] },
  });
  a.text("m5", "You're welcome.");

  const agent = new TranscriptBuilder("sess-a", { sidechain: true });
  const agentT1 = agent.prompt("Find the readers.");
  agent.call("m1", "toolu_grep", "Grep");
  const unanswered = agent.result("toolu_grep", "src/line_reader.ts");

  const b = new TranscriptBuilder("sess-b");
  b.prompt("Query the stalls.");
  b.call("m1", "toolu_q1", "mcp__plugin_acme_db-tools__query");
  b.result("toolu_q1", "3 rows");
  b.text("m2", "Three stalls.");
  b.prompt("Open the schema.");
  b.call("m3", "toolu_schema", "Read");
  b.interrupt();
  const bT3 = b.prompt("Both at once.");
  const parallelQuery = b.call(
    "m4",
    "toolu_q2",
    "mcp__plugin_acme_db-tools__query",
  );
  const parallelRead = b.call("m4", "toolu_read", "Read");
  b.prompt("Still there?"); // the turn before had ended: a stall
  b.text("m5", "Yes: both calls hung.");

  // Files captured mid-turn: no sign the last turn ended, and a process
  // that died in the middle of a turn, resumed later.
  const c = new TranscriptBuilder("sess-c");
  const cT1 = c.prompt("Count the lines.");
  c.call("m1", "toolu_wc", "Bash");
  const diedResult = c.result("toolu_wc", "120 total");
  c.resumeAfterDeath();
  c.prompt("And now?");
  c.text("m2", "120 lines.");
  c.stopSummary();
  const cT3 = c.prompt("Read the config.");
  c.call("m3", "toolu_cfg", "Read");
  const noEndResult = c.result("toolu_cfg", "port = 8080");

  // The model announced its next step and stopped: counted apart.
  const d = new TranscriptBuilder("sess-d");
  d.prompt("Fix the build.");
  d.call("m1", "toolu_make", "Bash");
  d.result("toolu_make", "error: missing semicolon");
  const announced = d.text("m2", "Found it. Let me fix the semicolon now:");
  d.stopSummary();

  const old = new TranscriptBuilder("sess-old");
  old.prompt("Hello.");
  old.text("m1", "Hi.");

  const api = join(root, "-home-dev-api");
  const web = join(root, "-home-dev-web");
  await write(join(api, "sess-a.jsonl"), a);
  await write(join(api, "sess-a", "subagents", "agent-x1.jsonl"), agent);
  await write(join(web, "sess-b.jsonl"), b);
  await write(join(web, "sess-c.jsonl"), c);
  await write(join(web, "sess-d.jsonl"), d);
  await write(join(web, "sess-old.jsonl"), old);
  await Deno.utime(
    join(web, "sess-old.jsonl"),
    new Date("2025-01-01"),
    new Date("2025-01-01"),
  );
  await Deno.writeTextFile(join(web, "notes.txt"), "not a transcript");
  const unreadable: string[] = [];
  const dangling = join(web, "dangling.jsonl");
  if (await symlinkIfPossible(join(root, "nowhere.jsonl"), dangling)) {
    unreadable.push(dangling);
  }
  if (!ON_WINDOWS) {
    const fifo = join(web, "fifo.jsonl");
    await new Deno.Command("mkfifo", { args: [fifo] }).output();
    unreadable.push(fifo);
  }
  return {
    api,
    web,
    unreadable: unreadable.sort(),
    lines: {
      aT1,
      killed,
      aT2,
      hung,
      aT3,
      empty,
      agentT1,
      unanswered,
      bT3,
      parallelQuery,
      parallelRead,
      cT1,
      diedResult,
      cT3,
      noEndResult,
      announced,
    },
  };
}

/**
 * `report` as its snapshot holds it: the temporary root as `<root>` with `/`
 * separators, without the timing and the unreadable files (their list
 * differs by platform; the test checks it against the corpus).
 */
function golden(report: Record<string, unknown>, root: string): unknown {
  const { elapsed_ms: _elapsed, unreadable: _unreadable, ...rest } = report;
  return JSON.parse(
    JSON.stringify(
      rest,
      (_key, value) =>
        typeof value === "string" && value.startsWith(root)
          ? "<root>" + value.slice(root.length).replaceAll("\\", "/")
          : value,
    ),
  );
}

Deno.test("audit --json counts every turn of a hand-built projects folder exactly", async () => {
  await using project = await tempProject();
  const dir = project.dir;
  const root = join(dir, "projects");
  const { unreadable, lines: l } = await handBuiltCorpus(root);
  const { code, stdout, stderr } = await cli(["audit", root, "--json"], dir);
  assert.equal(code, 0, stderr);
  assert.equal(stderr, "");
  const report = JSON.parse(stdout);
  // Totals, kinds, tools, servers and every session's stalls.
  await assertSnapshot(
    golden(report, root),
    import.meta.url,
    "hand_built_audit",
  );
  // The stalls are on the lines the corpus put them on.
  assert.deepEqual(
    report.sessions.map((
      s: { stalls: { turn_line: number; line: number }[] },
    ) => s.stalls.map((stall) => [stall.turn_line, stall.line])),
    [
      [[l.aT1, l.killed], [l.aT2, l.hung], [l.aT3, l.empty]],
      [[l.bT3, l.parallelQuery], [l.bT3, l.parallelRead]],
      [[l.agentT1, l.unanswered]],
    ],
  );
  assert.equal(report.announced_turns, 1);
  assert.deepEqual(
    report.announced.map((a: { line: number; announcement: string }) => [
      a.line,
      a.announcement,
    ]),
    [[l.announced, "Let me fix the semicolon now:"]],
  );
  // Turns that show no sign they ended are reported apart, not as stalls.
  assert.equal(report.unfinished_turns, 2);
  assert.deepEqual(
    report.unfinished.map((
      u: { turn_line: number; line: number; ending: string },
    ) => [u.turn_line, u.line, u.ending]),
    [
      [l.cT1, l.diedResult, "process_died"],
      [l.cT3, l.noEndResult, "no_end"],
    ],
  );
  assert.deepEqual(
    report.unreadable.map((u: { path: string }) => u.path).sort(),
    unreadable,
  );
  for (const u of report.unreadable) assert.equal(typeof u.error, "string");
  assert.equal(typeof report.elapsed_ms, "number");

  // --since leaves the old file out and says so.
  const since = JSON.parse(
    (await cli(["audit", root, "--json", "--since", "2026-01-01"], dir))
      .stdout,
  );
  assert.equal(since.files, 5);
  assert.equal(since.turns, 13);
  assert.equal(since.skipped_older, 1);
  assert.equal(since.stalled_turns, 5);
  assert.equal(since.unfinished_turns, 2);
});

Deno.test("audit prints totals, kinds, tools, servers, worst sessions and unreadable files", async () => {
  await using project = await tempProject();
  const dir = project.dir;
  const root = join(dir, "projects");
  const { api, unreadable, lines: l } = await handBuiltCorpus(root);
  const { code, stdout } = await cli(["audit", root], dir);
  assert.equal(code, 0);
  assert.match(
    stdout,
    /^Audited 6 transcripts \(.+\) under .+projects in \d+\.\d s \(.+\/s\)\n/,
  );
  assert.match(
    stdout,
    /\n {2}turns: 14 {3}stalled turns: 5 \(35\.7%\) {3}stalled calls: 6\n {2}announced, then stopped: 1 \(announced_no_call: the last words announced an action that never came; see below\)\n {2}unfinished turns: 2 \(they look stalled, but nothing shows they ended: not stalls; see below\)\n/,
  );
  assert.match(
    stdout,
    /\nStalled turns by kind\n {2}kind\s+turns\n {2}pending_tool_use\s+2\n {2}empty_tool_result\s+1\n {2}hung_mcp_call\s+2\n {2}missing_followup\s+1\n/,
  );
  assert.match(stdout, /\nTools that stall most\n {2}tool\s+calls\n/);
  assert.match(stdout, /\n {2}plugin_acme_db-tools \(plugin acme\)\s+1\n/);
  assert.match(
    stdout,
    /\nWorst sessions\n {2}stalled\s+turns\s+first stall\s+path\n/,
  );
  assert.ok(
    stdout.includes(
      `        3      4  line ${l.killed}       ${join(api, "sess-a.jsonl")}\n`,
    ),
    stdout,
  );
  assert.match(
    stdout,
    /\nUnfinished turns \(no sign they ended: a hang, or a file captured mid-turn\)\n {2}turn\s+stall\s+why\s+path\n {2}line \d+\s+line \d+\s+process died\s+.+sess-c\.jsonl\n {2}line \d+\s+line \d+\s+no end\s+.+sess-c\.jsonl\n/,
  );
  assert.match(
    stdout,
    /\nAnnounced, then stopped \(announced_no_call; blocked only when configured\)\n {2}message\s+announcement\s+path\n {2}line \d+ +Let me fix the semicolon now: +.+sess-d\.jsonl\n/,
  );
  if (unreadable.some((path) => path.endsWith("dangling.jsonl"))) {
    assert.match(stdout, /\nUnreadable \(\d\)\n {2}.+dangling\.jsonl: /);
  } else {
    // Windows without symlink rights, or Wine: nothing unreadable to show.
    assert.doesNotMatch(stdout, /\nUnreadable/);
  }
});

Deno.test("audit --json on a generated multi-session corpus matches a plain parse of every line", async () => {
  await using project = await tempProject();
  const dir = project.dir;
  const root = join(dir, "projects");
  const corpus = writeCorpusSync(root, {
    sessions: 12,
    sizePerSession: 1 << 20,
    seed: 3,
  });
  const report = JSON.parse(
    (await cli(["audit", root, "--json", "--jobs", "1"], dir)).stdout,
  );

  // Independent facts from the generator.
  assert.equal(report.files, corpus.files.length);
  assert.equal(report.bytes, corpus.bytes);
  assert.deepEqual(report.unreadable, []);
  const subagents = corpus.files.filter((f) =>
    f.path.split(/[\\/]/).includes("subagents")
  );
  assert.ok(subagents.length > 0, "the corpus has subagent transcripts");
  // A file that ends on a call still running (a hung tool: no Stop fires)
  // shows no sign its turn ended: unfinished, not stalled.
  const stalledTails = corpus.files.filter((f) => f.pendingToolUseId);
  assert.ok(stalledTails.length > 0, "the corpus has stalled tails");
  for (const tail of stalledTails) {
    const last = report.unfinished.findLast((u: { path: string }) =>
      u.path === tail.path
    );
    assert.ok(last, `${tail.path} is listed as unfinished`);
    assert.deepEqual(
      [last.kind, last.tool_name, last.tool_use_id, last.ending],
      ["pending_tool_use", "Read", tail.pendingToolUseId, "no_end"],
    );
  }

  // Every count against the reference scan, file by file.
  let turns = 0;
  let unfinished = 0;
  const stalls: Record<string, unknown>[] = [];
  const byKind: Record<string, number> = {};
  for (
    const file of corpus.files.toSorted((a, b) => a.path < b.path ? -1 : 1)
  ) {
    for (
      const v of await referenceVerdicts(
        file.path,
        file.path.split(/[\\/]/).includes("subagents"),
      )
    ) {
      turns++;
      if (v.verdict.signatures.length === 0) continue;
      if (v.ending !== "ended") {
        unfinished++;
        continue;
      }
      for (const kind of new Set(v.verdict.signatures.map((s) => s.kind))) {
        byKind[kind] = (byKind[kind] ?? 0) + 1;
      }
      for (const s of v.verdict.signatures) {
        stalls.push({
          path: file.path,
          turn_line: v.startLine,
          ...signatureData(s),
        });
      }
    }
  }
  assert.equal(report.turns, turns);
  assert.ok(turns > 200, `${turns} turns`);
  assert.equal(report.unfinished_turns, unfinished);
  assert.equal(report.stalled_calls, stalls.length);
  assert.equal(
    report.stalled_turns,
    new Set(stalls.map((s) => `${s.path}:${s.turn_line}`)).size,
  );
  for (const [kind, count] of Object.entries(report.by_kind)) {
    assert.equal(count, byKind[kind] ?? 0, kind);
  }
  const reported = report.sessions.flatMap((
    s: { path: string; stalls: object[] },
  ) => s.stalls.map((stall) => ({ path: s.path, ...stall })));
  const key = (s: Record<string, unknown>) =>
    `${s.path}:${s.line}:${s.tool_use_id}`;
  assert.deepEqual(reported.map(key).sort(), stalls.map(key).sort());

  // Two workers give the same answer as one thread.
  const pooled = JSON.parse(
    (await cli(["audit", root, "--json", "--jobs", "2"], dir)).stdout,
  );
  delete pooled.elapsed_ms;
  delete report.elapsed_ms;
  assert.deepEqual(pooled, report);
});

Deno.test("audit reports a turn that ended on an API error as stalled and says so", async () => {
  await using temp = await tempProject();
  const dir = temp.dir;
  const project = join(dir, "projects", "-home-dev-api");
  await Deno.mkdir(project, { recursive: true });
  const path = join(project, "e7cbc79b-8013-4653-b2a4-da16c8c87ab9.jsonl");
  await Deno.copyFile(
    new URL(
      "../../fixtures/real/real_api_error_after_tool_result.jsonl",
      import.meta.url,
    ),
    path,
  );
  const json = await cli(["audit", join(dir, "projects"), "--json"], dir);
  const report = JSON.parse(json.stdout);
  assert.equal(report.stalled_turns, 1);
  assert.equal(report.api_error_turns, 1);
  assert.deepEqual(report.by_kind.missing_followup, 1);
  assert.equal(report.sessions[0].api_error_turns, 1);
  const text = await cli(["audit", join(dir, "projects")], dir);
  assert.match(
    text.stdout,
    /\n {2}stalled turns that ended on an API error: 1 \(Claude Code wrote "API Error: \.\.\."; the model never answered\)\n/,
  );
});

Deno.test("auditFilesInParallel() audits in this thread when workers cannot start", async () => {
  await using project = await tempProject();
  const dir = project.dir;
  const root = join(dir, "projects");
  await handBuiltCorpus(root);
  const { files } = findTranscripts(root);
  const broken = new URL("./no_such_worker.ts", import.meta.url);
  const fallback = await auditFilesInParallel(files, {
    workers: 2,
    workerUrl: broken,
  });
  assert.deepEqual(fallback, await auditFiles(files));
  assert.equal(fallback.length, 6);
});

Deno.test("audit draws a progress bar on a terminal stderr only, and erases it", async () => {
  await using project = await tempProject();
  const dir = project.dir;
  const root = join(dir, "projects");
  writeCorpusSync(root, { sessions: 4, sizePerSession: 2 << 20, seed: 9 });
  let clock = 0;
  const tty = await cli(["audit", root, "--json", "--jobs", "1"], dir, {
    stderrIsTerminal: true,
    now: () => (clock += 200),
  });
  assert.equal(tty.code, 0);
  const drawn = tty.stderr.replaceAll("\x1b[2K", "");
  assert.match(drawn, /\r\[#*-*\] +\d+% {2}\S+\.jsonl/);
  assert.ok(
    tty.stderr.endsWith("\r\x1b[2K"),
    JSON.stringify(tty.stderr.slice(-20)),
  );
  JSON.parse(tty.stdout); // stdout holds only the JSON
  clock = 0;
  const piped = await cli(["audit", root, "--json", "--jobs", "1"], dir, {
    now: () => (clock += 200),
  });
  assert.equal(piped.stderr, "");
});

Deno.test("audit finds the projects folder from CLAUDE_CONFIG_DIR or HOME", async () => {
  await using project = await tempProject();
  const dir = project.dir;
  const config = join(dir, "config");
  const b = new TranscriptBuilder();
  b.prompt("Hi");
  b.call("m1", "toolu_1", "Bash");
  b.prompt("Are you there?"); // the stalled turn had ended
  await write(join(config, "projects", "p", "s.jsonl"), b);
  const viaConfig = await cli(["audit", "--json"], dir, {}, {
    CLAUDE_CONFIG_DIR: config,
  });
  assert.equal(JSON.parse(viaConfig.stdout).stalled_turns, 1);
  await Deno.rename(config, join(dir, ".claude"));
  const viaHome = await cli(["audit", "--json"], dir, {}, { HOME: dir });
  assert.equal(
    JSON.parse(viaHome.stdout).root,
    join(dir, ".claude", "projects"),
  );
  assert.equal(JSON.parse(viaHome.stdout).files, 1);
});

Deno.test("audit reads ~/.config/claude/projects and ~/.claude/projects, and every folder of a comma-separated CLAUDE_CONFIG_DIR", async () => {
  await using project = await tempProject();
  const dir = project.dir;
  const stalled = new TranscriptBuilder();
  stalled.prompt("Hi");
  stalled.call("m1", "toolu_1", "Bash");
  stalled.prompt("Are you there?"); // the stalled turn had ended
  const xdg = join(dir, ".config", "claude", "projects");
  const legacy = join(dir, ".claude", "projects");
  await write(join(xdg, "p", "new.jsonl"), stalled);
  await write(join(legacy, "p", "old.jsonl"), stalled);
  const both = JSON.parse(
    (await cli(["audit", "--json"], dir, {}, { HOME: dir })).stdout,
  );
  assert.deepEqual(both.roots, [xdg, legacy]);
  assert.equal(both.root, `${xdg}, ${legacy}`);
  assert.equal(both.files, 2);
  assert.equal(both.stalled_turns, 2);
  const xdgHome = join(dir, "xdg");
  await write(join(xdgHome, "claude", "projects", "q", "s.jsonl"), stalled);
  const viaXdg = JSON.parse(
    (await cli(["audit", "--json"], dir, {}, {
      HOME: dir,
      XDG_CONFIG_HOME: xdgHome,
    })).stdout,
  );
  assert.deepEqual(viaXdg.roots, [
    join(xdgHome, "claude", "projects"),
    legacy,
  ]);
  const listed = JSON.parse(
    (await cli(["audit", "--json"], dir, {}, {
      CLAUDE_CONFIG_DIR: ` ${join(dir, ".config", "claude")} ,${
        join(dir, ".claude")
      },`,
    })).stdout,
  );
  assert.deepEqual(listed.roots, [xdg, legacy]);
  assert.equal(listed.files, 2);
  const text = await cli(["audit"], dir, {}, { HOME: dir });
  assert.match(
    text.stdout,
    new RegExp(
      `^Audited 2 transcripts \\(.*\\) under ${
        xdg.replaceAll("\\", "\\\\")
      } and `,
    ),
  );
});

Deno.test("audit of a folder without transcripts says why, and --since takes 7d", async () => {
  await using project = await tempProject();
  const dir = project.dir;
  const empty = await cli(["audit", dir], dir);
  assert.equal(empty.code, 0);
  assert.match(empty.stdout, /^Audited 0 transcripts/);
  assert.match(
    empty.stderr,
    /^stall-watch: note: no transcript \(\*\.jsonl\) under .*: Claude Code keeps them in <projects folder>\/<project>\/<session>\.jsonl .*; name such a folder\n$/,
  );
  const b = new TranscriptBuilder();
  b.prompt("Hi");
  b.call("m1", "toolu_1", "Bash");
  const path = join(dir, "p", "s.jsonl");
  await write(path, b);
  const old = new Date(1_800_000_000_000 - 10 * 86_400_000); // fakeIO's now
  await Deno.utime(path, old, old);
  const recent = await cli(["audit", dir, "--since", "7d", "--json"], dir);
  assert.equal(JSON.parse(recent.stdout).skipped_older, 1);
  assert.match(
    recent.stderr,
    /^stall-watch: note: every transcript under .* is older than --since \(1 left out\): try an earlier --since\n$/,
  );
  const wider = await cli(["audit", dir, "--since", "2w", "--json"], dir);
  assert.equal(JSON.parse(wider.stdout).files, 1);
  assert.equal(wider.stderr, "");
});

Deno.test("audit lists a binary or non-JSON .jsonl as not a transcript instead of passing it as healthy", async () => {
  await using project = await tempProject();
  const dir = project.dir;
  await Deno.mkdir(join(dir, "p"));
  await Deno.writeFile(
    join(dir, "p", "image.jsonl"),
    new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0]),
  );
  await Deno.writeTextFile(join(dir, "p", "notes.jsonl"), "# notes\n{}\n");
  await Deno.writeTextFile(join(dir, "p", "empty.jsonl"), "");
  const result = await cli(["audit", dir, "--json"], dir);
  const json = JSON.parse(result.stdout);
  assert.deepEqual(
    json.unreadable.map((u: { path: string; error: string }) => [
      u.path.slice(dir.length + 1).replaceAll("\\", "/"),
      u.error,
    ]),
    [
      ["p/image.jsonl", "not a transcript: binary data, not JSON lines"],
      [
        "p/notes.jsonl",
        "not a transcript: its first line is not a JSON object",
      ],
    ],
  );
  assert.equal(json.files, 1, "only the empty file was read");
});

Deno.test("audit rejects bad input with one line and a documented exit code, never 2", async () => {
  await using project = await tempProject();
  const dir = project.dir;
  const cases: [string[], Record<string, string>, number, RegExp][] = [
    [
      ["audit", join(dir, "nope")],
      {},
      1,
      /^stall-watch: Cannot audit ".*nope": it does not exist\n$/,
    ],
    [
      ["audit"],
      { HOME: join(dir, "nohome") },
      1,
      /^stall-watch: Cannot audit: no Claude Code projects folder at .*nohome.\.config.claude.projects or .*nohome.\.claude.projects \(Claude Code creates it at its first session\); name the folder: stall-watch audit DIR\n$/,
    ],
    [["audit"], {}, 1, /^stall-watch: Cannot find the projects folder/],
    [
      ["audit", dir, "--since", "yesterday"],
      {},
      64,
      /^stall-watch: Bad value for "--since"/,
    ],
    [
      ["audit", dir, "--since", "2026-13-01"],
      {},
      64,
      /^stall-watch: Bad value for "--since"/,
    ],
    [
      ["audit", dir, "--jobs", "0"],
      {},
      64,
      /^stall-watch: Bad value for "--jobs"/,
    ],
    [["audit", dir, dir], {}, 64, /^stall-watch: Unexpected argument/],
    [
      ["audit", dir, "--verbose"],
      {},
      64,
      /^stall-watch: Unknown option "--verbose"/,
    ],
  ];
  for (const [args, env, want, message] of cases) {
    const io = fakeIO({ cwd: dir });
    const code = await main(args, { ...io, env });
    assert.equal(code, want, args.join(" "));
    assert.equal(io.stdout.join(""), "");
    assert.match(io.stderr.join(""), message);
  }
});

Deno.test("audit as a process under the release permissions, with workers, writes nothing", async () => {
  await using project = await tempProject();
  const dir = project.dir;
  const root = join(dir, "projects");
  await handBuiltCorpus(root);
  const before = [...Deno.readDirSync(dir)].map((e) => e.name).sort();
  const result = await runStallWatch({
    cwd: dir,
    args: ["audit", root, "--json", "--jobs", "2"],
  });
  assert.equal(result.code, 0, result.stderr);
  const report = JSON.parse(result.stdout);
  assert.equal(report.stalled_turns, 5);
  assert.equal(report.files, 6);
  assert.equal(report.unfinished_turns, 2);
  assert.deepEqual(
    [...Deno.readDirSync(dir)].map((e) => e.name).sort(),
    before,
  );
});
