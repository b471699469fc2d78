/**
 * A one-line progress bar on stderr, only on a terminal and after half a
 * second, redrawn at most ten times a second and erased when done.
 *
 * @module
 */

import type { CliIO } from "./cli_io.ts";
import { escapeTerminal, ownSequence } from "./terminal_text.ts";

/** Back to the line's start and erase it: stall-watch's own sequence. */
const ERASE_LINE = ownSequence("\r\x1b[2K");

const SHOW_AFTER_MS = 500;
const REDRAW_MS = 100;
const BAR_CELLS = 24;

/** A progress bar over a known total of units (bytes). */
export class ProgressBar {
  #io: Pick<CliIO, "writeStderr" | "stderrIsTerminal" | "now">;
  #total: number;
  #startedAt: number;
  #drawnAt = -Infinity;
  #visible = false;

  constructor(
    io: Pick<CliIO, "writeStderr" | "stderrIsTerminal" | "now">,
    total: number,
  ) {
    this.#io = io;
    this.#total = total;
    this.#startedAt = io.now();
  }

  /** Reports `done` units and a short label (the file read); draws when due. */
  update(done: number, label: string): void {
    if (!this.#io.stderrIsTerminal) return;
    const now = this.#io.now();
    if (now - this.#startedAt < SHOW_AFTER_MS) return;
    if (now - this.#drawnAt < REDRAW_MS) return;
    this.#drawnAt = now;
    this.#visible = true;
    this.#io.writeStderr(
      `${ERASE_LINE}${progressLine(done, this.#total, label)}`,
    );
  }

  clear(): void {
    if (this.#visible) this.#io.writeStderr(ERASE_LINE);
    this.#visible = false;
  }
}

/** The bar's text, `[#####-----]  42%  label`; a `total` of 0 is finished. */
export function progressLine(
  done: number,
  total: number,
  label: string,
): string {
  const ratio = total > 0 ? Math.min(1, Math.max(0, done / total)) : 1;
  const filled = Math.round(ratio * BAR_CELLS);
  const bar = "#".repeat(filled) + "-".repeat(BAR_CELLS - filled);
  const percent = `${Math.floor(ratio * 100)}%`.padStart(4);
  const room = 40;
  // The label is a file name from the folder being read: escaped, then cut.
  const safe = escapeTerminal(label);
  const shown = safe.length > room ? `…${safe.slice(-(room - 1))}` : safe;
  return `[${bar}] ${percent}  ${shown}`;
}
