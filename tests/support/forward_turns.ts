/**
 * A whole transcript's text split into turns by the forward rule, as the
 * watcher's follower and the audit split a file they read from its start.
 *
 * @module
 */

import { toEntry } from "../../src/transcript/line_entries.ts";
import {
  ForwardTurnSplitter,
  type SplitTurn,
} from "../../src/transcript/turn.ts";

/**
 * Every turn of `text`, main thread only, with 1-based entry lines. Blank
 * and corrupt lines are skipped, as the readers skip them.
 */
export function forwardTurns(text: string): SplitTurn[] {
  const splitter = new ForwardTurnSplitter({ includeSidechains: false });
  const turns: SplitTurn[] = [];
  text.split("\n").forEach((line, index) => {
    let raw: unknown;
    try {
      raw = JSON.parse(line);
    } catch {
      return;
    }
    if (raw === null || typeof raw !== "object" || Array.isArray(raw)) return;
    const entry = toEntry(raw as Record<string, unknown>, {
      offset: 0,
      line: index + 1,
    });
    if (entry !== null) turns.push(...splitter.push(entry));
  });
  return [...turns, ...splitter.finish()];
}
