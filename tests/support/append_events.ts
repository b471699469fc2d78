/**
 * Appends numbered events to `.claude/stall_watch/events.jsonl` through the
 * real event sink, as fast as it can: one writer in the event-log race
 * tests, run as its own process under the release permission flags.
 *
 * Usage: append_events.ts <writer id> <count> <max bytes>
 *
 * @module
 */

import { appendEvents } from "../../src/events/event_log.ts";

const [writer = "w", count = "100", maxBytes = "10485760"] = Deno.args;
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
for (let seq = 0; seq < Number(count); seq++) {
  await appendEvents([{
    event: "healthy_stop",
    sessionId: `race-${writer}`,
    ts: seq,
    // Lines of different lengths, so torn or interleaved writes show.
    data: { writer, seq, pad: "x".repeat((seq * 37) % 400) },
  }], {
    cwd: Deno.cwd(),
    path: ".claude/stall_watch/events.jsonl",
    maxBytes: Number(maxBytes),
    sleep,
  });
}
