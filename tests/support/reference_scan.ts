/**
 * The reference history scan for tests: every line parsed whole, no
 * pre-filter, no sniffing, no re-reads. The fast scan must agree with it.
 *
 * @module
 */

import { classifyTurn } from "../../src/detection/classify.ts";
import type { Entry } from "../../src/transcript/entry.ts";
import {
  HISTORY_CONTEXT,
  type HistoryVerdict,
} from "../../src/detection/history_turns.ts";
import { lineEntries } from "../../src/transcript/line_entries.ts";
import { readLinesForward } from "../../src/transcript/line_reader.ts";
import { ForwardTurnSplitter } from "../../src/transcript/turn.ts";

/** Every turn's verdict, from a plain parse of every line of `path`. */
export async function referenceVerdicts(
  path: string,
  subagent: boolean,
): Promise<HistoryVerdict[]> {
  const file = await Deno.open(path);
  const splitter = new ForwardTurnSplitter({ includeSidechains: subagent });
  const verdicts: HistoryVerdict[] = [];
  const add = (turn: Entry[] | null) => {
    if (turn) {
      verdicts.push({
        startLine: splitter.closedTurnStartLine,
        verdict: classifyTurn(turn, HISTORY_CONTEXT),
      });
    }
  };
  try {
    for await (const raw of readLinesForward(file, { maxLineBytes: 2 ** 30 })) {
      for (const entry of lineEntries(raw, raw.line)) add(splitter.push(entry));
    }
    add(splitter.finish());
    return verdicts;
  } finally {
    file.close();
  }
}
