/**
 * Subagents judged by what their parent receives: real captures of a
 * subagent whose report came with a last call and which then ended with no
 * text (2.1.47: the parent gets nothing; 2.1.332: the parent gets the
 * report), the release boundary that decides it (2.1.72), the main-session
 * exemption kept; and a subagent whose parent was still waiting for it
 * when the session ended (a real killed session), unfinished, not stalled,
 * as `scan --all-turns` and `audit` both read it.
 */

import assert from "node:assert/strict";
import { basename, dirname, join } from "node:path";
import { classifyTurn } from "../../src/detection/classify.ts";
import {
  readHistoryVerdicts,
  type TurnEnding,
} from "../../src/detection/history_turns.ts";
import { toEntry } from "../../src/transcript/line_entries.ts";
import type { Entry } from "../../src/transcript/entry.ts";
import { FIXTURES_DIR } from "../support/cases.ts";
import {
  isEntry,
  type Line,
  realLines,
  transcriptText,
} from "../support/real_lines.ts";
import { tempProject } from "../support/temp_project.ts";

/** The conversation entries of `lines` after the task prompt. */
function turnOf(lines: readonly Line[], sidechain = true): Entry[] {
  const entries: Entry[] = [];
  lines.forEach((line, i) => {
    if (typeof line === "string") return;
    const entry = toEntry(line, { offset: i * 100, line: i + 1 });
    if (entry === null || entry.kind === "prompt") return;
    if (entry.sidechain === sidechain) entries.push(entry);
  });
  return entries;
}

/** `lines` as written by `release` (every entry's `version`). */
function asRelease(lines: readonly Line[], release: string): Line[] {
  return lines.map((line) =>
    isEntry(line) ? { ...line, version: release } : line
  );
}

const REPORT_THEN_CALL_OLD = "real_subagent_report_then_call_2.1.47.jsonl";
const REPORT_THEN_CALL_NEW = "real_subagent_report_then_call_2.1.332.jsonl";

const judge = (turn: Entry[], subagent: boolean) =>
  classifyTurn(turn, { backgroundTasks: [], subagent }).signatures.map((
    s,
  ) => [s.kind, s.toolName, s.line]);

Deno.test("a subagent that gave its report with a last call and ended without text: subagent_no_report where the parent gets only the final message (real 2.1.47), none where it gets the report (real 2.1.332)", () => {
  assert.deepEqual(judge(turnOf(realLines(REPORT_THEN_CALL_OLD)), true), [
    ["subagent_no_report", "mcp__stub__echo", 6],
  ]);
  assert.deepEqual(judge(turnOf(realLines(REPORT_THEN_CALL_NEW)), true), []);
});

Deno.test("subagent_no_report follows the release that wrote the file: before 2.1.72 the parent gets the final message's text only", () => {
  const lines = realLines(REPORT_THEN_CALL_OLD);
  for (const [release, kinds] of [["2.1.71", 1], ["2.1.72", 0]] as const) {
    const found = judge(turnOf(asRelease(lines, release)), true);
    assert.equal(found.length, kinds, release);
  }
  // A file that names no release is taken to be of the older kind.
  const unnamed = lines.map((line) => {
    if (!isEntry(line)) return line;
    const { version: _version, ...rest } = line;
    return rest;
  });
  assert.deepEqual(judge(turnOf(unnamed), true), [
    ["subagent_no_report", "mcp__stub__echo", 6],
  ]);
});

Deno.test("the same turn in a main session is the user's answer, then bookkeeping: no stall (the exemption is kept)", () => {
  const main = realLines(REPORT_THEN_CALL_OLD).map((line) =>
    isEntry(line) ? { ...line, isSidechain: false } : line
  );
  assert.deepEqual(judge(turnOf(main, false), false), []);
});

Deno.test("a subagent whose last text led on to more work is a missing follow-up on every release, not subagent_no_report", () => {
  for (const name of [REPORT_THEN_CALL_OLD, REPORT_THEN_CALL_NEW]) {
    const lines = realLines(name).map((line) => {
      if (!isEntry(line, "assistant")) return line;
      const message = line.message as { content: { type: string }[] };
      if (message.content[0]?.type !== "text") return line;
      return {
        ...line,
        message: {
          ...message,
          content: [{ type: "text", text: "Let me check the module:" }],
        },
      };
    });
    assert.deepEqual(judge(turnOf(lines), true), [
      ["missing_followup", "mcp__stub__echo", name.includes("2.1.47") ? 6 : 16],
    ], name);
  }
});

/** The real killed session: parent and subagent in Claude Code's layout. */
const KILLED = join(
  FIXTURES_DIR,
  "real",
  "real_subagent_killed_mid_call_2.1.332",
);

/** The subagent file of a session folder. */
function agentFileIn(folder: string): string {
  for (const entry of Deno.readDirSync(folder)) {
    if (!entry.isDirectory) continue;
    for (
      const agent of Deno.readDirSync(join(folder, entry.name, "subagents"))
    ) {
      return join(folder, entry.name, "subagents", agent.name);
    }
  }
  throw new Error(`no subagent file in ${folder}`);
}

/** The last turn's ending and outcome, read as `scan` and `audit` read it. */
async function lastTurn(path: string): Promise<[TurnEnding, string]> {
  const file = await Deno.open(path);
  try {
    const turns = [];
    for await (const v of readHistoryVerdicts(file, { subagent: true, path })) {
      turns.push(v);
    }
    const last = turns.at(-1)!;
    return [last.ending, last.outcome];
  } finally {
    file.close();
  }
}

/** A copy of the killed session with the parent's lines changed by `edit`. */
async function killedSessionWith(
  dir: string,
  edit: (lines: Line[], agentId: string) => Line[],
): Promise<string> {
  const agent = agentFileIn(KILLED);
  const agentId = /^agent-(.+)\.jsonl$/.exec(basename(agent))![1]!;
  const session = basename(dirname(dirname(agent)));
  const target = join(dir, "proj");
  await Deno.mkdir(join(target, session, "subagents"), { recursive: true });
  const parent = Deno.readTextFileSync(join(KILLED, `${session}.jsonl`))
    .split("\n").filter((l) => l !== "").map((l) => JSON.parse(l) as Line);
  await Deno.writeTextFile(
    join(target, `${session}.jsonl`),
    transcriptText(edit(parent, agentId)),
  );
  const copy = join(target, session, "subagents", `agent-${agentId}.jsonl`);
  await Deno.copyFile(agent, copy);
  return copy;
}

Deno.test("a subagent whose parent was still waiting for it when the session ended (real, killed mid-call) is unfinished, not stalled", async () => {
  assert.deepEqual(await lastTurn(agentFileIn(KILLED)), [
    "agent_running",
    "unfinished",
  ]);
  await using project = await tempProject();
  // The parent's call answered with the subagent's return: a real stall.
  const returned = await killedSessionWith(project.dir, (lines, agentId) => {
    const call = lines.find((l) =>
      isEntry(l, "assistant") &&
      JSON.stringify(l.message).includes('"name":"Agent"')
    ) as Record<string, unknown>;
    const id = /"id":"(toolu_[^"]+)"/.exec(JSON.stringify(call.message))![1];
    return [...lines, {
      type: "user",
      isSidechain: false,
      sessionId: call.sessionId,
      message: {
        role: "user",
        content: [{ type: "tool_result", tool_use_id: id, content: "done" }],
      },
      toolUseResult: { status: "completed", agentId, content: [] },
    }];
  });
  assert.deepEqual(await lastTurn(returned), ["ended", "stalled"]);
});

Deno.test("a background subagent returns with its task notification; its launch alone leaves the parent waiting", async () => {
  await using project = await tempProject();
  const launch = (agentId: string): Line => ({
    type: "user",
    isSidechain: false,
    message: {
      role: "user",
      content: [{ type: "tool_result", tool_use_id: "toolu_x", content: "ok" }],
    },
    toolUseResult: { isAsync: true, status: "async_launched", agentId },
  });
  const launched = await killedSessionWith(
    join(project.dir, "a"),
    (lines, agentId) => [...lines, launch(agentId)],
  );
  assert.deepEqual(await lastTurn(launched), ["agent_running", "unfinished"]);
  const notified = await killedSessionWith(
    join(project.dir, "b"),
    (lines, agentId) => [...lines, launch(agentId), {
      type: "user",
      isSidechain: false,
      message: {
        role: "user",
        content:
          `<task-notification>\n<task-id>${agentId}</task-id>\n<status>completed</status>\n</task-notification>`,
      },
    }],
  );
  assert.deepEqual(await lastTurn(notified), ["ended", "stalled"]);
});

Deno.test("without its parent's file beside it, a subagent's turn counts as ended, as before", async () => {
  await using project = await tempProject();
  const copy = join(project.dir, "agent-aca3e89431cc1d6da.jsonl");
  await Deno.copyFile(agentFileIn(KILLED), copy);
  assert.deepEqual(await lastTurn(copy), ["ended", "stalled"]);
  // A session id in the file that is no plain id is never followed.
  const text = (await Deno.readTextFile(copy)).replaceAll(
    /"sessionId":"[^"]*"/g,
    '"sessionId":"../../etc/passwd"',
  );
  await Deno.writeTextFile(copy, text);
  assert.deepEqual(await lastTurn(copy), ["ended", "stalled"]);
});
