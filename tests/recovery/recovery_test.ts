import assert from "node:assert/strict";
import type {
  StallKind,
  StallSignature,
} from "../../src/detection/classify.ts";
import {
  buildBlockMessage,
  buildRecoveryPrompt,
  buildReportLines,
  DEFAULT_RECOVERY_TEXT,
  MAX_REASON_CHARS,
  nudgeFor,
} from "../../src/recovery/recovery.ts";

const sig = (
  kind: StallKind,
  toolUseId = "toolu_1",
  toolName = "Read",
  line = 7,
): StallSignature => ({
  kind,
  toolName,
  toolUseId,
  offset: line,
  line,
  rule: "r",
});

Deno.test("buildReportLines() prints one count line per kind, then the first stall", () => {
  const lines = buildReportLines([
    sig("hung_mcp_call", "toolu_m", "mcp__github__create_issue", 5),
    sig("empty_tool_result", "toolu_e", "Bash", 9),
    sig("hung_mcp_call", "toolu_n", "mcp__github__list", 11),
  ], "/p/s.jsonl");
  assert.deepEqual(lines, [
    "stall_watch: 2 hung mcp call in /p/s.jsonl",
    "stall_watch: 1 empty tool_result in /p/s.jsonl",
    "stall_watch: first stall = mcp__github__create_issue (id=toolu_m) at line 5 [hung mcp call]",
  ]);
});

Deno.test("nudgeFor() fills the three slots and degrades empty names and ids", () => {
  assert.equal(
    nudgeFor(sig("pending_tool_use", "toolu_9", "Grep", 12)),
    "Retry the Grep call (id toolu_9) or fall back to a safer alternative — it started at line 12 and never produced a tool_result.",
  );
  assert.match(
    nudgeFor(sig("missing_followup", "", "", 3)),
    /^The tool_result for the pending tool at line 3/,
  );
  const custom = {
    ...DEFAULT_RECOVERY_TEXT,
    nudges: {
      ...DEFAULT_RECOVERY_TEXT.nudges,
      hung_mcp_call: "{tool_name} {unknown} {line_number} {tool_use_id}",
    },
  };
  assert.equal(
    nudgeFor(sig("hung_mcp_call", "", "mcp__x__y", 4), custom),
    "mcp__x__y {unknown} 4 <unknown>",
  );
});

Deno.test("buildRecoveryPrompt() is header, one bullet per signature, footer; empty for none", () => {
  assert.equal(buildRecoveryPrompt([]), "");
  const prompt = buildRecoveryPrompt([
    sig("pending_tool_use"),
    sig("empty_tool_result", "toolu_2"),
  ]).split("\n");
  assert.equal(prompt[0], DEFAULT_RECOVERY_TEXT.header);
  assert.match(
    prompt[1] as string,
    /^- \[pending_tool_use\] Retry the Read call/,
  );
  assert.match(
    prompt[2] as string,
    /^- \[empty_tool_result\] The Read call at line 7 returned an empty tool_result/,
  );
  assert.equal(prompt[3], DEFAULT_RECOVERY_TEXT.footer);
});

Deno.test("buildBlockMessage() stays under Claude Code's preview limit with many stalls", () => {
  const many = Array.from(
    { length: 400 },
    (_, i) => sig("pending_tool_use", `toolu_${i}`, "Read", i + 1),
  );
  const message = buildBlockMessage(many, "/p/s.jsonl");
  assert.ok(message.length <= MAX_REASON_CHARS);
  assert.match(message, /^stall_watch: 400 pending tool_use in \/p\/s.jsonl\n/);
  assert.match(message, /- \(\d+ more stalled calls not listed\)\n/);
  assert.ok(message.trimEnd().endsWith(DEFAULT_RECOVERY_TEXT.footer));
});
