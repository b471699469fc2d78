/**
 * The hook as Claude Code runs it: a separate process under the release
 * permission flags (or the compiled binary via STALL_WATCH_HOOK_CMD), a
 * payload on stdin, and only the exit code, stdout and stderr to go by.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { KIND_LABELS } from "../../src/recovery/recovery.ts";
import { DEFAULT_TEXT, SEED_TEXT } from "../../src/recovery/nudge_texts.ts";
import type { StallKind } from "../../src/detection/classify.ts";
import {
  caseName,
  type FixtureCase,
  FIXTURES_DIR,
  loadCases,
  payloadFor,
} from "../support/cases.ts";
import { type ProcessResult, runStallWatch } from "../support/hook_process.ts";
import { tempProject } from "../support/temp_project.ts";

/** Files below `dir`, relative, sorted. */
async function listTree(dir: string, prefix = ""): Promise<string[]> {
  const names: string[] = [];
  for await (const entry of Deno.readDir(join(dir, prefix))) {
    const rel = prefix ? `${prefix}/${entry.name}` : entry.name;
    if (entry.isDirectory) names.push(...await listTree(dir, rel));
    else names.push(rel);
  }
  return names.sort();
}

function assertOneLine(result: ProcessResult, pattern: RegExp): void {
  const lines = result.stderr.split("\n").filter((l) => l !== "");
  assert.equal(
    lines.length,
    1,
    `expected one stderr line, got:\n${result.stderr}`,
  );
  assert.match(lines[0] as string, pattern);
  assert.doesNotMatch(result.stderr, /\n\s+at /, "no stack trace");
}

function expectedReport(c: FixtureCase, transcript: string): string[] {
  const counts = new Map<string, number>();
  for (const s of c.expect.signatures) {
    counts.set(s.kind, (counts.get(s.kind) ?? 0) + 1);
  }
  const lines = [...counts].map(([kind, n]) =>
    `stall_watch: ${n} ${KIND_LABELS[kind as StallKind]} in ${transcript}`
  );
  const first = c.expect.signatures[0];
  if (first) {
    lines.push(
      `stall_watch: first stall = ${
        first.tool_name || "unknown tool"
      } (id=${first.tool_use_id}) ` +
        `at line ${first.line} [${KIND_LABELS[first.kind as StallKind]}]`,
    );
  }
  return lines;
}

async function runCase(c: FixtureCase): Promise<void> {
  await using project = await tempProject();
  const payload = payloadFor(c, "e2e-session", project.dir);
  const result = await runStallWatch({ cwd: project.dir, stdin: payload });
  const label = `${caseName(c)}\n${result.stderr}`;
  if (c.expect.verdict === "allow") {
    assert.equal(result.code, 0, label);
    assert.equal(result.stdout, "", label);
    assert.equal(result.stderr, "", label);
    return;
  }
  assert.equal(result.code, 2, label);
  assert.equal(result.stdout, "", label);
  const transcript =
    (payload.agent_transcript_path ?? payload.transcript_path) as string;
  const report = expectedReport(c, transcript);
  const lines = result.stderr.split("\n");
  assert.deepEqual(lines.slice(0, report.length), report, label);
  assert.equal(lines[report.length], DEFAULT_TEXT.header, label);
  const bullets = lines.filter((l) => l.startsWith("- ["));
  assert.deepEqual(
    bullets.map((b) => b.slice(3, b.indexOf("]"))),
    c.expect.signatures.map((s) => s.kind),
    label,
  );
  // Each bullet names its tool; line numbers stay in the report lines.
  c.expect.signatures.forEach((s, i) => {
    if (s.tool_name) assert.ok(bullets[i]?.includes(s.tool_name), label);
    assert.doesNotMatch(bullets[i] as string, /\bline \d/, label);
  });
  // The only writes: the session's state and lock file inside .claude.
  assert.deepEqual(await listTree(project.dir), [
    ".claude/stall_watch/.gitignore",
    ".claude/stall_watch/.last-prune",
    ".claude/stall_watch/e2e-session.json",
    ".claude/stall_watch/e2e-session.lock",
  ]);
}

const cases = loadCases();
Deno.test("hook process gives every fixture case its expected exit code and report", async (t) => {
  // Four at a time: each case is a separate process start.
  for (let i = 0; i < cases.length; i += 4) {
    const batch = cases.slice(i, i + 4);
    await Promise.all(batch.map((c) =>
      t.step({
        name: caseName(c),
        fn: () => runCase(c),
        // Steps run concurrently, so per-step sanitizers cannot apply.
        sanitizeOps: false,
        sanitizeResources: false,
        sanitizeExit: false,
      })
    ));
  }
});

/** Runs the hung plugin MCP fixture with `env`. */
async function runHungMcp(env: Record<string, string>): Promise<ProcessResult> {
  await using project = await tempProject();
  const c = cases.find((x) =>
    x.fixture === "hung_plugin_mcp_call.jsonl"
  ) as FixtureCase;
  return await runStallWatch({
    cwd: project.dir,
    stdin: payloadFor(c, "output-mode", project.dir),
    env,
  });
}

const HUNG_BULLET =
  /^- \[hung_mcp_call\] The MCP tool mcp__plugin_acme_db-tools__query \(/m;

Deno.test("hook process with STALL_WATCH_OUTPUT=json: exit 0, the prompt alone as reason, the report in systemMessage", async () => {
  const result = await runHungMcp({ STALL_WATCH_OUTPUT: "json" });
  assert.equal(result.code, 0);
  assert.equal(result.stderr, "");
  const output = JSON.parse(result.stdout);
  assert.deepEqual(Object.keys(output), [
    "decision",
    "reason",
    "systemMessage",
  ]);
  assert.equal(output.decision, "block");
  assert.ok(output.reason.startsWith(DEFAULT_TEXT.header));
  assert.match(output.reason, HUNG_BULLET);
  assert.doesNotMatch(output.reason, /stall_watch: \d|\.jsonl|line \d/);
  assert.match(
    output.systemMessage,
    /^stall_watch: 1 hung mcp call in .*\.jsonl\nstall_watch: first stall = mcp__plugin_acme_db-tools__query \(id=\S+\) at line \d+ \[hung mcp call\]$/,
  );
});

Deno.test("hook process with STALL_WATCH_OUTPUT=context: exit 0, the prompt as Stop additionalContext, the report in systemMessage", async () => {
  const result = await runHungMcp({ STALL_WATCH_OUTPUT: "context" });
  assert.equal(result.code, 0);
  assert.equal(result.stderr, "");
  const output = JSON.parse(result.stdout);
  assert.deepEqual(Object.keys(output), [
    "hookSpecificOutput",
    "systemMessage",
  ]);
  assert.equal(output.hookSpecificOutput.hookEventName, "Stop");
  const prompt = output.hookSpecificOutput.additionalContext;
  assert.ok(prompt.startsWith(DEFAULT_TEXT.header));
  assert.match(prompt, HUNG_BULLET);
  assert.doesNotMatch(prompt, /stall_watch: \d|\.jsonl|line \d/);
  assert.match(output.systemMessage, /^stall_watch: 1 hung mcp call in /);
});

Deno.test("hook process with STALL_WATCH_OUTPUT=context on a release without Stop additionalContext (real 2.0.76 file): exit 2 with the report on stderr, and the event says why", async () => {
  await using project = await tempProject();
  const c = cases.find((x) =>
    x.fixture === "real/real_no_content_after_whitespace_reply_2.0.76.jsonl"
  ) as FixtureCase;
  const result = await runStallWatch({
    cwd: project.dir,
    stdin: payloadFor(c, "output-fallback", project.dir),
    env: {
      STALL_WATCH_OUTPUT: "context",
      STALL_WATCH_LOG_FILE: ".claude/stall_watch/events.jsonl",
    },
  });
  assert.equal(result.code, 2, result.stderr);
  assert.equal(result.stdout, "");
  assert.match(result.stderr, /^stall_watch: 1 missing follow-up in /);
  assert.match(result.stderr, /^stall_watch recovery: /m);
  const events = (await Deno.readTextFile(
    join(project.dir, ".claude/stall_watch/events.jsonl"),
  )).trim().split("\n").map((l) => JSON.parse(l));
  const detected = events.find((e) => e.event === "stall_detected");
  assert.equal(
    detected.output_fallback,
    'output "context" needs Claude Code 2.1.163 or later; the transcript was written by 2.0.76',
  );
});

Deno.test("hook process with nudge_preset seed writes the original texts after the report lines", async () => {
  const result = await runHungMcp({ STALL_WATCH_NUDGE_PRESET: "seed" });
  assert.equal(result.code, 2);
  const lines = result.stderr.split("\n");
  assert.match(lines[0] as string, /^stall_watch: 1 hung mcp call in /);
  assert.match(lines[1] as string, /^stall_watch: first stall = /);
  assert.equal(lines[2], SEED_TEXT.header);
  assert.match(
    lines[3] as string,
    /^- \[hung_mcp_call\] The MCP tool mcp__plugin_acme_db-tools__query \(id \S+\) hung at line \d+\. Restart the MCP server/,
  );
  assert.equal(lines[4], SEED_TEXT.footer);
});

Deno.test("hook process rejects unusable payloads with exit 1 and one line", async (t) => {
  await using project = await tempProject();
  const bad: [string, string, RegExp][] = [
    [
      "empty stdin",
      "",
      /^stall-watch: Cannot parse hook input: stdin is empty$/,
    ],
    [
      "not JSON",
      "{not json",
      /^stall-watch: Cannot parse hook input: not valid JSON/,
    ],
    ["an array", "[1,2]", /expected a JSON object, got an array$/],
    [
      "no transcript_path",
      '{"session_id":"x"}',
      /"transcript_path" is missing$/,
    ],
    [
      "transcript_path not a string",
      '{"transcript_path":42}',
      /must be a non-empty string, got a number$/,
    ],
  ];
  for (const [name, stdin, pattern] of bad) {
    await t.step(name, async () => {
      const result = await runStallWatch({ cwd: project.dir, stdin });
      assert.equal(result.code, 1);
      assert.equal(result.stdout, "");
      assertOneLine(result, pattern);
    });
  }
  assert.deepEqual(await listTree(project.dir), [], "nothing written");
});

Deno.test("hook process allows when the transcript is missing and rejects a directory", async () => {
  await using project = await tempProject();
  const missing = await runStallWatch({
    cwd: project.dir,
    stdin: {
      session_id: "s",
      transcript_path: join(project.dir, "nope.jsonl"),
    },
  });
  assert.deepEqual([missing.code, missing.stdout, missing.stderr], [
    0,
    "",
    "",
  ]);
  const directory = await runStallWatch({
    cwd: project.dir,
    stdin: { session_id: "s", transcript_path: FIXTURES_DIR },
  });
  assert.equal(directory.code, 1);
  assertOneLine(
    directory,
    /^stall-watch: Cannot read transcript ".*": it is a directory$/,
  );
});

Deno.test("hook process short-circuits on stop_hook_active before reading the transcript", async () => {
  await using project = await tempProject();
  // A directory would be an error if it were read.
  const result = await runStallWatch({
    cwd: project.dir,
    stdin: {
      session_id: "s",
      transcript_path: FIXTURES_DIR,
      stop_hook_active: true,
    },
  });
  assert.deepEqual([result.code, result.stdout, result.stderr], [0, "", ""]);
});

Deno.test("cli answers --version and rejects unknown commands with exit 64", async () => {
  await using project = await tempProject();
  const version = await runStallWatch({
    cwd: project.dir,
    args: ["--version"],
  });
  assert.equal(version.code, 0);
  assert.match(version.stdout, /^stall-watch \d+\.\d+\.\d+\n$/);
  const unknown = await runStallWatch({
    cwd: project.dir,
    args: ["frobnicate"],
  });
  assert.equal(unknown.code, 64);
  assertOneLine(unknown, /^stall-watch: Unknown command "frobnicate"/);
  const flag = await runStallWatch({ cwd: project.dir, args: ["--frob"] });
  assert.equal(flag.code, 64);
  assertOneLine(flag, /^stall-watch: Unknown option "--frob"/);
});
