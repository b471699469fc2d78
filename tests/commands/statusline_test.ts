/**
 * `stall-watch statusline`: names the call of the model's last message that
 * has had no result for minutes, from a real turn with a call in flight
 * (2.1.332, `mcp__stub__slow` running: the lines Claude Code had written
 * when it was killed, from `real_crashed_call_resumed_silent.jsonl`).
 */

import assert from "node:assert/strict";
import { resolve } from "node:path";
import { main } from "../../src/cli.ts";
import { callsInFlight } from "../../src/detection/calls_in_flight.ts";
import {
  MAX_STATUS_LINE_CHARS,
  statusLineText,
} from "../../src/commands/statusline.ts";
import type { Entry } from "../../src/transcript/entry.ts";
import { FIXTURES_DIR } from "../support/cases.ts";
import { fakeIO } from "../support/fake_io.ts";
import { tempProject } from "../support/temp_project.ts";

const MINUTE = 60_000;

/** The real file up to the call's line: the turn while the call ran. */
function callInFlightLines(): { lines: string[]; calledAt: number } {
  const lines = Deno.readTextFileSync(
    resolve(FIXTURES_DIR, "real", "real_crashed_call_resumed_silent.jsonl"),
  ).split("\n");
  const at = lines.findIndex((l) => l.includes('"type":"tool_use"'));
  assert.ok(at > 0);
  const call = JSON.parse(lines[at] as string);
  return {
    lines: lines.slice(0, at + 1),
    calledAt: Date.parse(call.timestamp),
  };
}

async function statusLine(
  lines: string[],
  nowMs: number,
  env: Record<string, string> = {},
) {
  await using project = await tempProject();
  const transcript = resolve(project.dir, "session.jsonl");
  await Deno.writeTextFile(transcript, lines.map((l) => l + "\n").join(""));
  const io = fakeIO({
    cwd: project.dir,
    env,
    nowMs,
    stdin: JSON.stringify({
      session_id: "s",
      transcript_path: transcript,
      version: "2.1.332",
    }),
  });
  const code = await main(["statusline"], io);
  return { code, stdout: io.stdout.join(""), stderr: io.stderr.join("") };
}

Deno.test("statusline names a call in flight once it has run for the threshold (5 min by default), and says nothing before", async () => {
  const { lines, calledAt } = callInFlightLines();
  assert.deepEqual(await statusLine(lines, calledAt + 4 * MINUTE), {
    code: 0,
    stdout: "",
    stderr: "",
  });
  assert.deepEqual(await statusLine(lines, calledAt + 12 * MINUTE + 5000), {
    code: 0,
    stdout:
      "stall-watch: mcp__stub__slow (seconds=60) has had no result for 12 min\n",
    stderr: "",
  });
  const soon = await statusLine(lines, calledAt + 45_000, {
    STALL_WATCH_STATUSLINE_AFTER_SECONDS: "30",
  });
  assert.equal(
    soon.stdout,
    "stall-watch: mcp__stub__slow (seconds=60) has had no result for 45 s\n",
  );
});

Deno.test("statusline says nothing once the call has its result, or when the file is gone", async () => {
  const whole = Deno.readTextFileSync(
    resolve(FIXTURES_DIR, "real", "real_crashed_call_resumed_answered.jsonl"),
  ).split("\n").filter((l) => l !== "");
  const { calledAt } = callInFlightLines();
  assert.equal((await statusLine(whole, calledAt + 60 * MINUTE)).stdout, "");
  await using project = await tempProject();
  const io = fakeIO({
    cwd: project.dir,
    stdin: JSON.stringify({ transcript_path: resolve(project.dir, "gone") }),
  });
  assert.equal(await main(["statusline"], io), 0);
  assert.deepEqual(io.stdout, []);
});

Deno.test("statusline refuses a payload without transcript_path and a terminal on stdin", async () => {
  await using project = await tempProject();
  const io = fakeIO({ cwd: project.dir, stdin: "{}" });
  assert.equal(await main(["statusline"], io), 1);
  assert.match(io.stderr.join(""), /"transcript_path" is missing/);
  const tty = fakeIO({ cwd: project.dir, stdinIsTerminal: true });
  assert.equal(await main(["statusline"], tty), 64);
});

let offset = 0;
const base = (time?: number) => ({
  offset: offset += 100,
  line: 0,
  promptId: null,
  sidechain: false,
  ...(time === undefined ? {} : { time }),
});
const calls = (
  message: string,
  time: number | undefined,
  ...ids: string[]
): Entry => ({
  kind: "assistant",
  ...base(time),
  messageId: message,
  texts: [],
  toolUses: ids.map((id) => ({ id, name: "Bash" })),
});
const result = (id: string): Entry => ({
  kind: "results",
  ...base(),
  results: [{ toolUseId: id, empty: false, userStopped: false, snippet: "" }],
});

Deno.test("callsInFlight() takes the unanswered calls of the model's last message only, and none after an interrupt or another hook's stop", () => {
  const ids = (turn: Entry[]) => callsInFlight(turn).map((c) => c.toolUseId);
  // Parallel calls on two lines of one message, one answered.
  assert.deepEqual(
    ids([calls("m1", 1000, "a"), calls("m1", 1001, "b"), result("a")]),
    ["b"],
  );
  // A call the model moved on from is not in flight.
  assert.deepEqual(ids([calls("m1", 1000, "a"), calls("m2", 2000, "b")]), [
    "b",
  ]);
  assert.deepEqual(
    ids([calls("m1", 1000, "a"), { kind: "interrupt", ...base() }]),
    [],
  );
  assert.deepEqual(
    ids([calls("m1", 1000, "a"), {
      kind: "hook_stop",
      ...base(),
      hookName: "PreToolUse:Bash",
    }]),
    [],
  );
  // Without a timestamp nobody can say for how long.
  assert.deepEqual(ids([calls("m1", undefined, "a")]), []);
});

Deno.test("statusLineText() names the oldest late call with its input, counts the others, and escapes what the transcript says", () => {
  const now = 10 * 60 * MINUTE;
  const call = (id: string, startedAt: number, name = "Bash") => ({
    toolName: name,
    toolUseId: id,
    toolInput: { field: "command", value: "make\u001b[2J" },
    startedAt,
  });
  assert.equal(statusLineText([call("a", now - MINUTE)], now, 300), null);
  assert.equal(
    statusLineText(
      [call("a", now - 125 * MINUTE), call("b", now - 6 * MINUTE)],
      now,
      300,
    ),
    "stall-watch: Bash (command=make\\u001b[2J) has had no result for 2 h 5 min (and 1 more)",
  );
});

Deno.test("statusLineText() caps the tool name and input after escaping, and the whole line at 200 characters, keeping how long", () => {
  const now = 10 * 60 * MINUTE;
  for (
    const name of [
      "T".repeat(60_000),
      "\u200b".repeat(20_000),
      "😀".repeat(30_000),
    ]
  ) {
    const line = statusLineText(
      [{
        toolName: name,
        toolUseId: "a",
        toolInput: { field: "k".repeat(50_000), value: "\u200b".repeat(999) },
        startedAt: now - 7 * MINUTE,
      }],
      now,
      300,
    )!;
    assert.ok(line.length <= MAX_STATUS_LINE_CHARS, `${line.length}`);
    assert.match(line, /^stall-watch: .* has had no result for 7 min$/);
    assert.doesNotMatch(line, /[\u200b\p{Cs}]/u);
  }
});
