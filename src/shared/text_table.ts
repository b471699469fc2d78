/**
 * Aligned plain-text tables for command output; every cell escaped and capped.
 *
 * @module
 */

import { clipMiddle } from "./errors.ts";
import { escapeTerminal } from "./terminal_text.ts";

/** Longest cell shown, in characters; a longer one keeps its ends around `…`. */
export const MAX_CELL_CHARS = 160;

/** A cell: its text, and optionally how to paint it once padded. */
export type Cell = string | { text: string; paint: (text: string) => string };

/** Options for {@link renderTable}. */
export interface TableOptions {
  rightAligned?: readonly number[];
  indent?: string;
  paintHeader?: (text: string) => string;
}

/** Rows under a header, columns two spaces apart, lines trimmed; no rows: "". */
export function renderTable(
  header: readonly string[],
  rows: readonly (readonly Cell[])[],
  options: TableOptions = {},
): string {
  if (rows.length === 0) return "";
  const right = new Set(options.rightAligned ?? []);
  const indent = options.indent ?? "";
  const paintHeader = options.paintHeader ?? ((text: string) => text);
  const all: Cell[][] = [header.map((text) => ({ text, paint: paintHeader }))];
  for (const row of rows) all.push([...row]);
  // Loops, not Math.max(...rows): a spread of 130,000 rows overflows the stack.
  let columns = 0;
  for (const row of all) columns = Math.max(columns, row.length);
  const widths = new Array<number>(columns).fill(0);
  for (const row of all) {
    for (let c = 0; c < columns; c++) {
      widths[c] = Math.max(widths[c] ?? 0, width(textOf(row[c] ?? "")));
    }
  }
  return all.map((row) => {
    const cells = widths.map((w, c) => {
      const cell = row[c] ?? "";
      const text = textOf(cell);
      const gap = " ".repeat(w - width(text));
      const painted = typeof cell === "string" ? text : cell.paint(text);
      return right.has(c) ? gap + painted : painted + gap;
    });
    return (indent + cells.join("  ")).trimEnd() + "\n";
  }).join("");
}

/** A cell's text, escaped and capped: cells hold names and paths from transcripts. */
function textOf(cell: Cell): string {
  return clipMiddle(
    escapeTerminal(typeof cell === "string" ? cell : cell.text),
    MAX_CELL_CHARS,
  );
}

function width(text: string): number {
  let count = 0;
  for (const _ of text) count++;
  return count;
}
