/**
 * Transcript shapes rebuilt on real Claude Code captures (`fixtures/real/`):
 * a capture's lines as objects, changed the way a given release or
 * situation changes them (a resumed 1.0.x session's rewritten times, a
 * compaction in the middle of a turn, a usage limit), and written back.
 *
 * @module
 */

import { resolve } from "node:path";
import { FIXTURES_DIR } from "./cases.ts";

/** One line of a transcript: a parsed object, or the raw text of another line. */
export type Line = Record<string, unknown> | string;

/** The lines of `fixtures/real/<name>`, parsed where they are JSON objects. */
export function realLines(name: string): Line[] {
  const text = Deno.readTextFileSync(resolve(FIXTURES_DIR, "real", name));
  return text.split("\n").filter((l) => l !== "").map((line) => {
    try {
      const value = JSON.parse(line);
      return value && typeof value === "object" && !Array.isArray(value)
        ? value
        : line;
    } catch {
      return line;
    }
  });
}

/** The transcript text of `lines`, each ended by `\n`. */
export function transcriptText(lines: readonly Line[]): string {
  return lines.map((l) =>
    (typeof l === "string" ? l : JSON.stringify(l)) + "\n"
  )
    .join("");
}

/** Whether a line is a conversation entry of `type` (`user`, `assistant`). */
export function isEntry(
  line: Line,
  type?: string,
): line is Record<string, unknown> {
  return typeof line !== "string" &&
    (line.type === "user" || line.type === "assistant") &&
    (type === undefined || line.type === type);
}

/** Whether a line is a human prompt (a user entry whose content is text). */
export function isPrompt(line: Line): line is Record<string, unknown> {
  if (!isEntry(line, "user") || line.isMeta === true) return false;
  const content = (line.message as { content?: unknown }).content;
  return typeof content === "string" && !content.startsWith("<");
}

/** Whether a line holds a tool result. */
export function isResult(line: Line): line is Record<string, unknown> {
  if (!isEntry(line, "user")) return false;
  const content = (line.message as { content?: unknown }).content;
  return Array.isArray(content) &&
    content.some((b) => b?.type === "tool_result");
}

/** A copy of an entry with the given fields replaced. */
export function withFields(
  line: Record<string, unknown>,
  fields: Record<string, unknown>,
): Record<string, unknown> {
  return { ...structuredClone(line), ...fields };
}

/** A copy of an assistant entry with its text blocks' text replaced. */
export function withText(
  line: Record<string, unknown>,
  text: string,
): Record<string, unknown> {
  const copy = structuredClone(line);
  const message = copy.message as { content: Record<string, unknown>[] };
  message.content = message.content.map((b) =>
    b.type === "text" ? { ...b, text } : b
  );
  return copy;
}

/** `iso` moved by `ms` milliseconds. */
export function shiftTime(iso: unknown, ms: number): string {
  return new Date(Date.parse(String(iso)) + ms).toISOString();
}

/**
 * The `compact_boundary` line and the summary Claude Code writes when it
 * compacts a conversation (lines 7 and 8 of
 * `fixtures/stall_after_compaction_mid_turn.jsonl`), moved into the
 * envelope of `like` (its session, release and time, plus 1 ms).
 */
export function compaction(like: Record<string, unknown>): Line[] {
  const text = Deno.readTextFileSync(
    resolve(FIXTURES_DIR, "stall_after_compaction_mid_turn.jsonl"),
  );
  const [boundary, summary] = text.split("\n").slice(6, 8).map((l) =>
    JSON.parse(l) as Record<string, unknown>
  );
  const envelope = {
    sessionId: like.sessionId,
    version: like.version,
    timestamp: shiftTime(like.timestamp, 1),
    ...(like.promptId === undefined ? {} : { promptId: like.promptId }),
  };
  const { promptId: _b, ...boundaryRest } = boundary as Record<string, unknown>;
  const { promptId: _s, ...summaryRest } = summary as Record<string, unknown>;
  return [{ ...boundaryRest, ...envelope }, { ...summaryRest, ...envelope }];
}
