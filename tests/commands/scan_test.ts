/**
 * `stall-watch scan`: the current turn exactly as the hook judges it (every
 * fixture case the command line can express), every turn with
 * `--all-turns`, subagent detection, output formats and exit codes.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { main } from "../../src/cli.ts";
import { caseName, FIXTURES_DIR, loadCases } from "../support/cases.ts";
import { fakeIO } from "../support/fake_io.ts";
import { runStallWatch } from "../support/hook_process.ts";
import { tempProject } from "../support/temp_project.ts";
import {
  DEFAULT_CORPUS,
  linkLayout,
  readCorpus,
} from "../corpus/corpus_files.ts";
import { skipWhere, underWine } from "../support/platform.ts";

/** Runs `stall-watch <args>` in process; returns exit code and output. */
async function cli(args: string[], overrides: Record<string, unknown> = {}) {
  const io = { ...fakeIO({ cwd: FIXTURES_DIR }), ...overrides };
  const code = await main(args, io);
  return { code, stdout: io.stdout.join(""), stderr: io.stderr.join("") };
}

const fixture = (name: string) => join(FIXTURES_DIR, name);

/** Payload fields scan can express: the event (subagent) and prompt_id. */
const EXPRESSIBLE = new Set([
  "hook_event_name",
  "prompt_id",
  "agent_transcript_is_fixture",
]);

for (
  const c of loadCases().filter((c) =>
    Object.keys(c.payload).every((k) => EXPRESSIBLE.has(k))
  )
) {
  Deno.test(`scan --json agrees with the manifest: ${caseName(c)}`, async () => {
    const args = ["scan", fixture(c.fixture), "--json"];
    if (typeof c.payload.prompt_id === "string") {
      args.push("--prompt-id", c.payload.prompt_id);
    }
    if (c.payload.agent_transcript_is_fixture) args.push("--subagent");
    const { code, stdout, stderr } = await cli(args);
    assert.equal(code, 0, stderr);
    const result = JSON.parse(stdout);
    assert.equal(result.verdict, c.expect.verdict, result.reason);
    assert.deepEqual(result.signatures, c.expect.signatures);
    assert.equal(typeof result.reason, "string");
  });
}

Deno.test("scan covers at least 50 manifest cases", () => {
  const covered = loadCases().filter((c) =>
    Object.keys(c.payload).every((k) => EXPRESSIBLE.has(k))
  );
  assert.ok(covered.length >= 50, `${covered.length} cases`);
});

Deno.test("scan reads a file under subagents/agent-*.jsonl as a subagent transcript", async () => {
  await using project = await tempProject();
  const dir = project.dir;
  const source = fixture("subagent_file_pending_call.jsonl");
  const agentDir = join(dir, "proj", "sess", "subagents");
  await Deno.mkdir(agentDir, { recursive: true });
  const asAgent = join(agentDir, "agent-a1b2.jsonl");
  const asMain = join(dir, "proj", "sess.jsonl");
  await Deno.copyFile(source, asAgent);
  await Deno.copyFile(source, asMain);
  const forced = JSON.parse(
    (await cli(["scan", source, "--json", "--subagent"])).stdout,
  );
  const auto = JSON.parse((await cli(["scan", asAgent, "--json"])).stdout);
  assert.equal(auto.subagent, true);
  assert.equal(auto.verdict, "block");
  assert.deepEqual(auto.signatures, forced.signatures);
  // The same file read as a main transcript: its sidechain entries are skipped.
  const main = JSON.parse((await cli(["scan", asMain, "--json"])).stdout);
  assert.equal(main.subagent, false);
  assert.equal(main.verdict, "allow");
});

Deno.test("scan --all-turns --json gives every turn with its start line and verdict", async () => {
  const { code, stdout } = await cli([
    "scan",
    fixture("old_stall_before_last_human_prompt.jsonl"),
    "--all-turns",
    "--json",
  ]);
  assert.equal(code, 0);
  const result = JSON.parse(stdout);
  assert.equal(result.stalled_turns, 1);
  assert.equal(result.unfinished_turns, 0);
  assert.deepEqual(result.turns, [
    {
      start_line: 3,
      verdict: "block",
      reason: "tool_use has no tool_result in this turn",
      ended_on_api_error: false,
      ended_on_unfixable_error: false,
      ending: "ended",
      announced: null,
      signatures: [{
        kind: "pending_tool_use",
        tool_name: "Bash",
        tool_use_id: "toolu_01IUKek77Tfv6Jyw1KTxpvsS",
        line: 5,
      }],
    },
    {
      start_line: 8,
      verdict: "allow",
      reason: "the model answered",
      ended_on_api_error: false,
      ended_on_unfixable_error: false,
      ending: "ended",
      signatures: [],
      announced: null,
    },
  ]);
  // A file that ends on the call shows no sign its turn ended.
  const cut = JSON.parse(
    (await cli([
      "scan",
      fixture("hung_mcp_call_github_create_issue.jsonl"),
      "--all-turns",
      "--json",
    ])).stdout,
  );
  assert.equal(cut.unfinished_turns, 1);
  assert.equal(cut.turns.at(-1).ending, "no_end");
  const text = await cli([
    "scan",
    fixture("hung_mcp_call_github_create_issue.jsonl"),
    "--all-turns",
  ]);
  assert.match(text.stdout, /unfinished: nothing on file shows the turn ended/);
});

Deno.test("scan notes a --prompt-id no entry carries, and judges as the hook would", async () => {
  const { code, stdout, stderr } = await cli([
    "scan",
    fixture("old_stall_before_last_human_prompt.jsonl"),
    "--prompt-id",
    "no-such-prompt",
    "--json",
  ]);
  assert.equal(code, 0);
  assert.equal(JSON.parse(stdout).verdict, "allow");
  assert.match(
    stderr,
    /^stall-watch: note: no entry near the end of .*old_stall_before_last_human_prompt\.jsonl has prompt_id "no-such-prompt": judged, as the hook would, what follows the last human prompt\n$/,
  );
});

Deno.test("scan --all-turns --stalled lists only the stalled turns, numbered as in the file", async () => {
  const path = fixture("old_stall_before_last_human_prompt.jsonl");
  const json = JSON.parse(
    (await cli(["scan", path, "--all-turns", "--stalled", "--json"])).stdout,
  );
  assert.equal(json.stalled_turns, 1);
  assert.deepEqual(
    json.turns.map((t: { start_line: number }) => t.start_line),
    [3],
  );
  const { code, stdout } = await cli([
    "scan",
    path,
    "--all-turns",
    "--stalled",
  ]);
  assert.equal(code, 0);
  const rows = stdout.split("\n").filter((l) => /^\s+\d+\s/.test(l));
  assert.equal(rows.length, 1, stdout);
  assert.match(rows[0] ?? "", /^\s+1\s+3\s+block\s/);
  assert.match(stdout, /: 2 turns, 1 stalled\n/);
});

Deno.test("scan prints the verdict, why, and each stalled call with its rule", async () => {
  const { code, stdout } = await cli([
    "scan",
    fixture("parallel_calls_hung_mcp_and_empty_result.jsonl"),
  ]);
  assert.equal(code, 0);
  const lines = stdout.split("\n");
  assert.match(lines[1] ?? "", /verdict: block \(2 stalled calls\)/);
  assert.match(
    lines[2] ?? "",
    /why: MCP tool_use has no tool_result in this turn/,
  );
  assert.match(stdout, /line\s+kind\s+tool\s+tool_use_id\s+rule/);
  assert.match(
    stdout,
    /\n\s+6\s+hung_mcp_call\s+mcp__github__create_issue\s+toolu_\w+\s+MCP tool_use has no tool_result in this turn\n/,
  );
  assert.match(
    stdout,
    /\n\s+7\s+empty_tool_result\s+WebFetch\s+toolu_\w+\s+tool_result is empty and the model never answered it\n/,
  );
  assert.ok(!stdout.includes("\x1b["), "no colour off a terminal");
});

Deno.test("scan says when the turn ended on an API error, in text and JSON", async () => {
  const path = fixture("real/real_api_error_after_tool_result.jsonl");
  const text = await cli(["scan", path]);
  assert.match(
    text.stdout,
    /\n {2}why: no assistant text or tool call after the last tool_result\n {2}note: the turn ended on an API error \(Claude Code's synthetic "API Error" entry, not an answer from the model\)\n/,
  );
  const json = JSON.parse((await cli(["scan", path, "--json"])).stdout);
  assert.equal(json.ended_on_api_error, true);
  const all = JSON.parse(
    (await cli(["scan", path, "--all-turns", "--json"])).stdout,
  );
  assert.equal(all.turns[0].ended_on_api_error, true);
  const rows = (await cli(["scan", path, "--all-turns"])).stdout;
  assert.match(rows, /missing_followup .+; the turn ended on an API error\n/);
  const healthy = await cli(["scan", fixture("healthy_no_tools.jsonl")]);
  assert.ok(!healthy.stdout.includes("API error"));
});

Deno.test("scan --all-turns prints one row per turn and per stalled call", async () => {
  const { stdout } = await cli([
    "scan",
    fixture("old_stall_before_last_human_prompt.jsonl"),
    "--all-turns",
  ]);
  assert.match(stdout, /: 2 turns, 1 stalled\n/);
  assert.match(
    stdout,
    /\n\s+1\s+3\s+block\s+5\s+pending_tool_use\s+Bash\s+toolu_\w+\s+tool_use has no/,
  );
  assert.match(stdout, /\n\s+2\s+8\s+allow\s+the model answered\n/);
});

Deno.test("scan colours only on a terminal and never with NO_COLOR", async () => {
  const path = fixture("pending_tool_use_split_lines.jsonl");
  const tty = await cli(["scan", path], { stdoutIsTerminal: true });
  assert.ok(tty.stdout.includes("\x1b[31mblock"), tty.stdout);
  const io = fakeIO({ cwd: FIXTURES_DIR, env: { NO_COLOR: "1" } });
  await main(["scan", path], { ...io, stdoutIsTerminal: true });
  assert.ok(!io.stdout.join("").includes("\x1b["));
});

Deno.test("scan rejects bad input with one line and a documented exit code, never 2", async () => {
  await using project = await tempProject();
  const dir = project.dir;
  const cases: [string[], number, RegExp][] = [
    [["scan"], 64, /^stall-watch: "scan" needs a transcript path/],
    [
      ["scan", "a.jsonl", "b.jsonl"],
      64,
      /^stall-watch: Unexpected argument "b.jsonl"/,
    ],
    [
      ["scan", "a.jsonl", "--jsn"],
      64,
      /^stall-watch: Unknown option "--jsn"/,
    ],
    [["scan", "a.jsonl", "-j"], 64, /^stall-watch: Unknown option "-j"/],
    [["scan", "a.jsonl", "--prompt-id"], 64, /needs a value/],
    [
      ["scan", "a.jsonl", "--all-turns", "--prompt-id", "p"],
      64,
      /cannot be combined with "--all-turns"/,
    ],
    [
      ["scan", join(dir, "missing.jsonl")],
      1,
      /^stall-watch: Cannot read transcript ".*missing.jsonl": it does not exist/,
    ],
    [
      ["scan", join(dir, "missing.jsonl"), "--all-turns"],
      1,
      /it does not exist/,
    ],
    [["scan", dir], 1, /it is a directory/],
    [
      ["scan", "--", "-odd.jsonl"],
      1,
      /^stall-watch: Cannot read transcript "-odd\.jsonl": it does not exist/,
    ],
    [["scan", dir, "--all-turns"], 1, /it is a directory/],
    [
      ["scan", "a.jsonl", "--stalled"],
      64,
      /"--stalled" filters "--all-turns"/,
    ],
    [
      ["scan", join(dir, "blob.jsonl")],
      1,
      /^stall-watch: Cannot scan ".*blob\.jsonl": not a transcript \(binary data, not JSON lines\)\n$/,
    ],
    [
      ["scan", join(dir, "blob.jsonl"), "--all-turns"],
      1,
      /not a transcript \(binary data/,
    ],
    [
      ["scan", join(dir, "notes.jsonl")],
      1,
      /not a transcript \(its first line is not a JSON object\)/,
    ],
  ];
  await Deno.writeFile(join(dir, "blob.jsonl"), new Uint8Array([0, 1, 2, 0]));
  await Deno.writeTextFile(join(dir, "notes.jsonl"), "notes\n");
  for (const [args, want, message] of cases) {
    const { code, stdout, stderr } = await cli(args);
    assert.equal(code, want, args.join(" "));
    assert.equal(stdout, "");
    assert.match(stderr, message);
    assert.equal(stderr.trimEnd().split("\n").length, 1, stderr);
  }
});

Deno.test("scan as a process under the release permissions exits 0 on a stall and writes nothing", async () => {
  await using project = await tempProject();
  const dir = project.dir;
  const result = await runStallWatch({
    cwd: dir,
    args: ["scan", fixture("hung_plugin_mcp_call.jsonl"), "--json"],
  });
  assert.equal(result.code, 0, result.stderr);
  const json = JSON.parse(result.stdout);
  assert.equal(json.verdict, "block");
  assert.equal(json.signatures[0].kind, "hung_mcp_call");
  assert.deepEqual([...Deno.readDirSync(dir)], []);
});

/** Every turn of one file as `scan --all-turns --json` shows it. */
interface ScannedTurn {
  start_line: number;
  verdict: "allow" | "block" | "unfinished";
}

/**
 * Runs `audit --json` over `root` and `scan --all-turns --json` on each of
 * its transcripts, and asserts both give every turn the same verdict: the
 * same stalled turns and the same unfinished turns, file by file and turn
 * by turn, and the same number of turns.
 */
async function assertReadersAgree(root: string, paths: readonly string[]) {
  const audit = JSON.parse((await cli(["audit", root, "--json"])).stdout);
  const stalledByAudit = new Map<string, Set<number>>();
  for (const session of audit.sessions) {
    stalledByAudit.set(
      session.path,
      new Set(session.stalls.map((s: { turn_line: number }) => s.turn_line)),
    );
  }
  const unfinishedByAudit = new Map<string, number[]>();
  for (const u of audit.unfinished) {
    unfinishedByAudit.set(u.path, [
      ...unfinishedByAudit.get(u.path) ?? [],
      u.turn_line,
    ]);
  }
  let turns = 0;
  let stalled = 0;
  let unfinished = 0;
  for (const path of paths) {
    const { code, stdout, stderr } = await cli([
      "scan",
      path,
      "--all-turns",
      "--json",
    ]);
    assert.equal(code, 0, `${path}: ${stderr}`);
    const scanned: ScannedTurn[] = JSON.parse(stdout).turns;
    turns += scanned.length;
    const lines = (verdict: ScannedTurn["verdict"]) =>
      scanned.filter((t) => t.verdict === verdict).map((t) => t.start_line);
    assert.deepEqual(
      lines("block"),
      [...stalledByAudit.get(path) ?? []].sort((a, b) => a - b),
      `${path}: stalled turns`,
    );
    assert.deepEqual(
      lines("unfinished"),
      unfinishedByAudit.get(path) ?? [],
      `${path}: unfinished turns`,
    );
    stalled += lines("block").length;
    unfinished += lines("unfinished").length;
  }
  assert.equal(turns, audit.turns);
  assert.equal(stalled, audit.stalled_turns);
  assert.equal(unfinished, audit.unfinished_turns);
  return { turns, stalled, unfinished };
}

/** Every `.jsonl` file under `dir`, its subfolders included. */
function transcriptsUnder(dir: string): string[] {
  const found: string[] = [];
  for (const entry of Deno.readDirSync(dir)) {
    const path = join(dir, entry.name);
    if (entry.isDirectory) found.push(...transcriptsUnder(path));
    else if (entry.name.endsWith(".jsonl")) found.push(path);
  }
  return found.sort();
}

Deno.test("scan --all-turns and audit give every turn of every fixture the same verdict; unfinished turns are never shown as block", async () => {
  await using project = await tempProject();
  const root = join(project.dir, "projects");
  const subagentFixtures = new Set(
    loadCases().filter((c) => c.payload.agent_transcript_is_fixture)
      .map((c) => c.fixture),
  );
  for (const dir of ["", "real"]) {
    for (const entry of Deno.readDirSync(join(FIXTURES_DIR, dir))) {
      const name = join(dir, entry.name);
      if (!entry.isFile || !name.endsWith(".jsonl")) continue;
      const slug = name.replaceAll(/[^A-Za-z0-9]/g, "-");
      const target = subagentFixtures.has(name)
        ? join(
          root,
          "fixtures",
          `s-${slug}`,
          "subagents",
          `agent-${slug}.jsonl`,
        )
        : join(root, "fixtures", `${slug}.jsonl`);
      await Deno.mkdir(join(target, ".."), { recursive: true });
      await Deno.copyFile(fixture(name), target);
    }
  }
  // A session folder as Claude Code leaves it: parent and subagent.
  await copyTree(
    fixture("real/real_subagent_killed_mid_call_2.1.332"),
    join(root, "killed"),
  );
  const { stalled, unfinished } = await assertReadersAgree(
    root,
    transcriptsUnder(root),
  );
  assert.ok(stalled > 20 && unfinished > 5, `${stalled}, ${unfinished}`);
});

Deno.test({
  ...skipWhere(
    "scan --all-turns and audit agree turn by turn on the real corpus (skipped without ../shared/corpus)",
    underWine(
      "the corpus's folder names make paths of over 260 characters, and " +
        "Windows Deno's open under a permission list fails on those under " +
        "Wine (os error 234: Wine's GetFinalPathNameByHandle)",
    ),
  ),
}, async () => {
  const corpus = readCorpus(DEFAULT_CORPUS);
  if (corpus === null) {
    console.log(`no corpus at ${DEFAULT_CORPUS}: skipped`);
    return;
  }
  await using project = await tempProject();
  const links = linkLayout(corpus, project.dir);
  const { turns } = await assertReadersAgree(
    join(project.dir, "projects"),
    [
      ...links.values(),
    ].sort(),
  );
  assert.ok(turns > 1000, `${turns} turns`);
});

/** Copies the folder `from` to `to`, recursively. */
async function copyTree(from: string, to: string): Promise<void> {
  await Deno.mkdir(to, { recursive: true });
  for (const entry of Deno.readDirSync(from)) {
    if (entry.isDirectory) {
      await copyTree(join(from, entry.name), join(to, entry.name));
    } else await Deno.copyFile(join(from, entry.name), join(to, entry.name));
  }
}
