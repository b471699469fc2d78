/**
 * `audit` and `scan` over Codex CLI history: real rollouts
 * (`fixtures/codex/`) laid out as Codex keeps them
 * (`$CODEX_HOME/sessions/YYYY/MM/DD/rollout-*.jsonl`), told from Claude
 * Code transcripts by their first line, judged by the same rules and
 * summed in the same tables.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { main } from "../../src/cli.ts";
import { fakeIO } from "../support/fake_io.ts";
import { tempProject } from "../support/temp_project.ts";
import { CODEX_FIXTURES_DIR } from "../support/codex_fixtures.ts";
import { FIXTURES_DIR } from "../support/cases.ts";

/** Copies captures into `<home>/.codex/sessions/2026/12/06/`. */
async function sessions(home: string, names: string[]): Promise<string> {
  const day = join(home, ".codex", "sessions", "2026", "12", "06");
  await Deno.mkdir(day, { recursive: true });
  for (const [i, name] of names.entries()) {
    await Deno.copyFile(
      join(CODEX_FIXTURES_DIR, name),
      join(day, `rollout-2026-12-06T05-0${i}-00-${name}`),
    );
  }
  return day;
}

async function run(args: string[], cwd: string, env: Record<string, string>) {
  const io = fakeIO({ cwd, env });
  const code = await main(args, io);
  return { code, stdout: io.stdout.join(""), stderr: io.stderr.join("") };
}

Deno.test("audit --codex reads $CODEX_HOME/sessions: stalled, unfinished and announced turns of real rollouts", async () => {
  await using project = await tempProject();
  await sessions(project.dir, [
    "codex_stalled_turn_then_healthy_turn.jsonl",
    "codex_killed_during_call_resumed.jsonl",
    "codex_blocked_then_answered_end.jsonl",
    "codex_interrupted_during_call.jsonl",
  ]);
  const env = { HOME: project.dir };
  const { code, stdout, stderr } = await run(
    ["audit", "--codex", "--json"],
    project.dir,
    env,
  );
  assert.equal(code, 0, stderr);
  const audit = JSON.parse(stdout);
  assert.equal(audit.files, 4);
  // Turns: 2 + 2 + 1 + 1.
  assert.equal(audit.turns, 6);
  // The first turn of the two-turn session ended (task_complete) stalled.
  assert.equal(audit.stalled_turns, 1);
  assert.equal(audit.by_kind.missing_followup, 1);
  assert.equal(
    Object.values(audit.by_kind as Record<string, number>).reduce(
      (a, b) => a + b,
    ),
    1,
  );
  assert.deepEqual(Object.keys(audit.by_tool), ["exec_command"]);
  // The killed turn's call never got an output and Codex never ended it:
  // listed apart, as a turn whose process died.
  assert.equal(audit.unfinished_turns, 1);
  assert.equal(audit.unfinished[0].ending, "process_died");
  assert.equal(audit.roots[0], join(project.dir, ".codex", "sessions"));
  // CODEX_HOME wins over HOME.
  const elsewhere = await run(["audit", "--codex", "--json"], project.dir, {
    HOME: project.dir,
    CODEX_HOME: join(project.dir, "nowhere"),
  });
  assert.equal(elsewhere.code, 1);
  assert.match(elsewhere.stderr, /nowhere.sessions.*does not exist/);
});

Deno.test("audit of a folder holding both Claude Code transcripts and Codex rollouts judges each by its own format", async () => {
  await using project = await tempProject();
  const day = await sessions(project.dir, [
    "codex_call_then_empty_reply.jsonl",
  ]);
  await Deno.copyFile(
    join(FIXTURES_DIR, "healthy_text_after_results.jsonl"),
    join(day, "claude.jsonl"),
  );
  const { code, stdout } = await run(
    ["audit", day, "--json"],
    project.dir,
    {},
  );
  assert.equal(code, 0);
  const audit = JSON.parse(stdout);
  assert.equal(audit.files, 2);
  assert.equal(audit.unreadable.length, 0);
  // The rollout, captured at Stop, has no task_complete yet: unfinished.
  assert.equal(audit.unfinished_turns, 1);
  assert.equal(audit.unfinished[0].tool_name, "exec_command");
  assert.equal(audit.unfinished[0].kind, "missing_followup");
});

Deno.test("scan of a rollout judges its current turn; --prompt-id names a turn_id; --all-turns every turn", async () => {
  await using project = await tempProject();
  const day = await sessions(project.dir, [
    "codex_stalled_turn_then_healthy_turn.jsonl",
    "codex_empty_exec_output_no_reply.jsonl",
  ]);
  const [twoTurns, empty] = [...Deno.readDirSync(day)].map((e) =>
    join(day, e.name)
  ).sort();
  const current = await run(["scan", twoTurns!, "--json"], project.dir, {});
  assert.equal(current.code, 0, current.stderr);
  assert.equal(JSON.parse(current.stdout).verdict, "allow");
  const stalled = await run(["scan", empty!, "--json"], project.dir, {});
  const verdict = JSON.parse(stalled.stdout);
  assert.equal(verdict.verdict, "block");
  assert.equal(verdict.signatures[0].kind, "empty_tool_result");
  assert.equal(verdict.signatures[0].tool_name, "exec_command");
  // The line of the empty output, 1-based, as in the file.
  const lines = (await Deno.readTextFile(empty!)).split("\n");
  assert.match(
    lines[verdict.signatures[0].line - 1] ?? "",
    /"type":"function_call_output"/,
  );
  // The older turn, by its turn_id.
  const stops = JSON.parse(
    await Deno.readTextFile(
      join(
        CODEX_FIXTURES_DIR,
        "codex_stalled_turn_then_healthy_turn.stops.json",
      ),
    ),
  );
  const older = await run(
    ["scan", twoTurns!, "--json", "--prompt-id", stops[0].payload.turn_id],
    project.dir,
    {},
  );
  assert.equal(older.stderr, "");
  const all = await run(
    ["scan", twoTurns!, "--all-turns", "--json"],
    project.dir,
    {},
  );
  const turns = JSON.parse(all.stdout).turns;
  assert.equal(turns.length, 2);
  assert.equal(turns[0].verdict, "block");
  assert.equal(turns[1].verdict, "allow");
});
