/**
 * Terminal colours: `--color`, else `FORCE_COLOR` (`0`/`false` off), else
 * `NO_COLOR` off, else on for a terminal whose `TERM` is not `dumb`.
 *
 * @module
 */

import type { CliIO } from "./cli_io.ts";
import { type OwnSequence, ownSequence } from "./terminal_text.ts";

/** The parts of the process boundary the colour decision reads. */
export type ColorIO = Pick<
  CliIO,
  "env" | "stdoutIsTerminal" | "stderrIsTerminal" | "color"
>;

/** Whether text for `stream` gets colour (see the module notes). */
export function colorEnabled(
  io: ColorIO,
  stream: "stdout" | "stderr",
): boolean {
  if (io.color === "always") return true;
  if (io.color === "never") return false;
  const force = io.env.FORCE_COLOR;
  if (force) return force !== "0" && force.toLowerCase() !== "false";
  if (io.env.NO_COLOR) return false;
  const terminal = stream === "stdout"
    ? io.stdoutIsTerminal
    : io.stderrIsTerminal;
  return terminal && io.env.TERM !== "dumb";
}

/** Painters for the few styles commands use; identity when colour is off. */
export interface Style {
  enabled: boolean;
  bold(text: string): string;
  dim(text: string): string;
  red(text: string): string;
  green(text: string): string;
  yellow(text: string): string;
}

/** The style for one output stream. */
export function styleFor(io: ColorIO, stream: "stdout" | "stderr"): Style {
  const enabled = colorEnabled(io, stream);
  // Own tokens: only the guarded writer makes them sequences.
  const paint = (open: OwnSequence, close: OwnSequence) => (text: string) =>
    enabled && text !== ""
      ? ownSequence(open) + text + ownSequence(close)
      : text;
  return {
    enabled,
    bold: paint("\x1b[1m", "\x1b[22m"),
    dim: paint("\x1b[2m", "\x1b[22m"),
    red: paint("\x1b[31m", "\x1b[39m"),
    green: paint("\x1b[32m", "\x1b[39m"),
    yellow: paint("\x1b[33m", "\x1b[39m"),
  };
}
