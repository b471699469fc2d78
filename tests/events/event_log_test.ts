/** One event line never outgrows its cap, whatever the payload held. */

import assert from "node:assert/strict";
import { describeDecision } from "../../src/events/event_log_summary.ts";
import {
  type EventRecord,
  formatEvent,
  MAX_EVENT_LINE_BYTES,
} from "../../src/events/event_log.ts";

const bytes = (text: string) => new TextEncoder().encode(text).length;

function hugeEvent(): EventRecord {
  return {
    event: "stall_detected",
    sessionId: "s".repeat(200_000),
    ts: 1,
    data: {
      transcript: `/tmp/${"é".repeat(100_000)}.jsonl`,
      signatures: Array.from({ length: 5000 }, (_, i) => ({
        kind: "pending_tool_use",
        tool_use_id: `toolu_${i}`,
        line: i,
      })),
    },
  };
}

Deno.test("formatEvent() writes small events whole, keys sorted", () => {
  const line = formatEvent({
    event: "healthy_stop",
    sessionId: "abc",
    ts: 5,
    data: { reason: "the model answered", hook_event: "Stop" },
  });
  assert.equal(
    line,
    '{"event":"healthy_stop","hook_event":"Stop","reason":"the model answered","session_id":"abc","ts":5}\n',
  );
});

Deno.test("formatEvent() cuts a huge event to the cap and says so", () => {
  for (const cap of [MAX_EVENT_LINE_BYTES, 4096]) {
    const line = formatEvent(hugeEvent(), cap);
    assert.ok(bytes(line) <= cap, `${bytes(line)} <= ${cap}`);
    assert.ok(line.endsWith("}\n"));
    const parsed = JSON.parse(line);
    assert.equal(parsed.event, "stall_detected");
    assert.equal(parsed.truncated, true);
    assert.ok(parsed.session_id.startsWith("sss"));
  }
});

Deno.test("describeDecision() tells a turn's cap (Codex) from a call's", () => {
  const capped = [{
    kind: "missing_followup",
    tool_name: "exec_command",
    tool_use_id: "call_1",
    line: 15,
  }];
  assert.match(
    describeDecision({
      event: "retry_cap_hit",
      max_retries: 3,
      scope: "turn",
      turn: "turn:t1",
      capped,
    }),
    /^turn cap 3 reached for missing_followup exec_command call_1 line 15$/,
  );
  assert.match(
    describeDecision({ event: "retry_cap_hit", max_retries: 3, capped }),
    /^cap 3 reached for /,
  );
});
