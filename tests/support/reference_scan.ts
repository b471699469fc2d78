/**
 * The reference history scan for tests: every line parsed whole, no
 * pre-filter, no sniffing, no re-reads. The fast scan must agree with it.
 *
 * @module
 */

import {
  type HistoryVerdict,
  historyVerdict,
} from "../../src/detection/history_turns.ts";
import { lineEntries } from "../../src/transcript/line_entries.ts";
import { readLinesForward } from "../../src/transcript/line_reader.ts";
import {
  ForwardTurnSplitter,
  type SplitTurn,
} from "../../src/transcript/turn.ts";

/** Every turn's verdict, from a plain parse of every line of `path`. */
export async function referenceVerdicts(
  path: string,
  subagent: boolean,
): Promise<HistoryVerdict[]> {
  const file = await Deno.open(path);
  const splitter = new ForwardTurnSplitter({ includeSidechains: subagent });
  const verdicts: HistoryVerdict[] = [];
  const add = (turns: SplitTurn[], last: boolean) => {
    turns.forEach((turn, i) => {
      const history = {
        startLine: turn.startLine,
        entries: turn.entries,
        followed: !last || i < turns.length - 1,
      };
      verdicts.push(historyVerdict(history, subagent));
    });
  };
  try {
    for await (const raw of readLinesForward(file, { maxLineBytes: 2 ** 30 })) {
      for (const entry of lineEntries(raw, raw.line)) {
        add(splitter.push(entry), false);
      }
    }
    add(splitter.finish(), true);
    return verdicts;
  } finally {
    file.close();
  }
}
