/**
 * A Stop that fires before Claude Code has written the turn's last lines
 * never changes the verdict: whatever part of the turn is on file when the
 * hook looks, the hook waits for the rest where the file shows it is behind,
 * and reaches the verdict the whole file gives.
 *
 * Claude Code appends through a write queue, so the file at a Stop is a
 * prefix of the file a moment later, in the order the client wrote it. Real
 * 2.1.145 under load (four busy loops on two cores) was seen leaving every
 * kind of prefix: no file at all, the session's metadata lines only, the
 * prompt alone, the call without its result, the result without the final
 * reply. This rebuilds each of them from every real capture in
 * `fixtures/real/` (the write orders of 2.0.76, 2.1.47, 2.1.145 and 2.1.332,
 * a late prompt line and a result ahead of its call among them): each
 * prefix is on file at the Stop, the rest lands while the hook waits.
 *
 * The payload is the one the client sends with the whole file: from 2.1.47
 * on it carries the final reply's text, when there is any. Before 2.1.47
 * nothing tells the text line of a message whose call line is still on its
 * way from a whole text answer (the payload has no such field, and 2.0.76
 * writes `stop_reason: null` on a message's text line as many clients write
 * it on every line), so there a prefix that splits one message is left out:
 * the hook judges such a file as the text answer it looks like.
 */

import assert from "node:assert/strict";
import { join, resolve } from "node:path";
import { signatureData } from "../../src/detection/classify.ts";
import { releaseOf, supports } from "../../src/claude_client/release.ts";
import type { Entry } from "../../src/transcript/entry.ts";
import { detectStalls } from "../../src/detection/detect.ts";
import { readStopPayload } from "../../src/hook/_hook_input.ts";
import { scanCurrentTurn } from "../../src/transcript/tail_scan.ts";
import { lineEntries } from "../../src/transcript/line_entries.ts";
import { caseName, FIXTURES_DIR, loadCases } from "../support/cases.ts";
import { tempFixture } from "../support/temp_project.ts";

const encoder = new TextEncoder();

/** The lines of `text`, each with its `\n`. */
function linesOf(text: string): string[] {
  return text.split(/(?<=\n)/).filter((line) => line.length > 0);
}

/**
 * The line counts a Stop can find on file: none (no file), 0 (an empty
 * file), and each prefix that still holds the judged turn's start, or no
 * model entry of an older turn (before it the file would show a whole older
 * turn, which only `prompt_id` or an end-of-turn line can tell apart; the
 * lag-evidence tests cover those).
 */
function prefixesOf(
  lines: readonly string[],
  start: number,
  promptId: string | null,
  isSubagent: boolean,
  sendsLastMessage: boolean,
): (number | null)[] {
  const entries = entriesOf(lines);
  const counts: (number | null)[] = [null];
  let olderTurnOnFile = false;
  for (let count = 0; count <= lines.length; count++) {
    const last = entries[count - 1]?.at(-1);
    const next = entries[count]?.[0];
    const splitsMessage = last?.kind === "assistant" &&
      next?.kind === "assistant" && last.messageId === next.messageId;
    if (
      (!olderTurnOnFile || promptId !== null) &&
      (!splitsMessage || sendsLastMessage)
    ) counts.push(count);
    const line = lines[count];
    if (line === undefined) break;
    if ((next?.offset ?? Infinity) < start) {
      olderTurnOnFile ||= (entries[count] ?? []).some((e) =>
        e.kind === "assistant" && (!e.sidechain || isSubagent)
      );
    }
  }
  return counts;
}

/** Each line's entries, with their offsets in the file. */
function entriesOf(lines: readonly string[]): Entry[][] {
  let offset = 0;
  return lines.map((line) => {
    const bytes = encoder.encode(line);
    const raw = {
      offset,
      length: bytes.length - 1,
      head: encoder.encode(line.trimEnd()),
      tail: new Uint8Array(),
      clipped: false,
    };
    offset += bytes.length;
    return lineEntries(raw);
  });
}

/**
 * The final reply's text as the client sends it in `last_assistant_message`
 * (2.1.47+), when the turn ends on one: the newest model message with text
 * and no call.
 */
function finalReplyText(turn: readonly Entry[]): string | null {
  const last = turn.findLast((e) =>
    e.kind === "results" ||
    (e.kind === "assistant" && !e.synthetic && !e.apiError &&
      (e.texts.length > 0 || e.toolUses.length > 0))
  );
  if (last?.kind !== "assistant" || last.toolUses.length > 0) return null;
  return turn
    .filter((e) => e.kind === "assistant" && e.messageId === last.messageId)
    .flatMap((e) => e.kind === "assistant" ? e.texts : [])
    .join("\n");
}

const realCases = loadCases().filter((c) => c.fixture.startsWith("real/"));

for (const fixtureCase of realCases) {
  Deno.test(`detectStalls() on every prefix of ${caseName(fixtureCase)}, the rest landing during the wait`, async () => {
    const text = await Deno.readTextFile(
      resolve(FIXTURES_DIR, fixtureCase.fixture),
    );
    const lines = linesOf(text);
    await using folder = await tempFixture((dir) => ({
      path: join(dir, "session.jsonl"),
    }));
    const { agent_transcript_is_fixture: isAgent, ...extra } =
      fixtureCase.payload;
    const payload = {
      session_id: "late-write",
      transcript_path: folder.path,
      ...(isAgent ? { agent_transcript_path: folder.path } : {}),
      cwd: folder.dir,
      hook_event_name: "Stop",
      ...extra,
    };
    await Deno.writeTextFile(folder.path, text);
    const whole = await scanCurrentTurn(folder.path, {
      promptId: typeof extra.prompt_id === "string" ? extra.prompt_id : null,
      includeSidechains: isAgent === true,
    });
    assert.ok(whole);
    const sendsLastMessage =
      supports(releaseOf(whole.entries), "last_assistant_message") === true;
    const reply = finalReplyText(whole.entries);
    if (sendsLastMessage && reply !== null) {
      (payload as Record<string, unknown>).last_assistant_message ??= reply;
    }
    const input = readStopPayload(JSON.stringify(payload)).input();
    const counts = prefixesOf(
      lines,
      whole.startOffset ?? 0,
      input.promptId,
      input.isSubagent,
      sendsLastMessage,
    );
    for (const landsAt of [1, 3]) {
      for (const count of counts) {
        await Deno.remove(folder.path).catch(() => {});
        if (count !== null) {
          await Deno.writeTextFile(folder.path, lines.slice(0, count).join(""));
        }
        let sleeps = 0;
        const detection = await detectStalls(input, {
          lagWaitMs: 2000,
          sleep: async () => {
            if (++sleeps === landsAt) {
              await Deno.writeTextFile(folder.path, text);
            }
          },
        });
        const at = `${count ?? "no file"} of ${lines.length} lines on file, ` +
          `the rest after ${landsAt} polls: ${detection.reason}`;
        assert.equal(
          detection.signatures.length > 0 ? "block" : "allow",
          fixtureCase.expect.verdict,
          at,
        );
        assert.deepEqual(
          detection.signatures.map(signatureData),
          fixtureCase.expect.signatures,
          at,
        );
      }
    }
  });
}

Deno.test("the late-write property covers the real captures of every release that wrote them", () => {
  const names = new Set(realCases.map((c) => c.fixture));
  for (
    const order of [
      "real/real_prompt_line_after_call_2.1.145.jsonl",
      "real/real_prompt_line_after_result_2.1.47.jsonl",
      "real/real_subagent_result_ahead_of_call_2.1.47.jsonl",
      "real/real_blank_mcp_result_then_empty_text_reply_2.0.76.jsonl",
      "real/real_empty_mcp_result_no_followup.jsonl",
    ]
  ) assert.ok(names.has(order), order);
});
