/**
 * Terminal colours for command output: on only when the stream is a
 * terminal, `NO_COLOR` is unset or empty (https://no-color.org) and `TERM`
 * is not `dumb`.
 *
 * @module
 */

import type { CliIO } from "./cli_io.ts";

/** Painters for the few styles commands use; identity when colour is off. */
export interface Style {
  enabled: boolean;
  bold(text: string): string;
  dim(text: string): string;
  red(text: string): string;
  green(text: string): string;
  yellow(text: string): string;
}

/**
 * The style for one output stream.
 *
 * @param io The process boundary (environment and TTY flags).
 * @param stream Which stream the text goes to.
 */
export function styleFor(
  io: Pick<CliIO, "env" | "stdoutIsTerminal" | "stderrIsTerminal">,
  stream: "stdout" | "stderr",
): Style {
  const terminal = stream === "stdout"
    ? io.stdoutIsTerminal
    : io.stderrIsTerminal;
  const enabled = terminal && !io.env.NO_COLOR && io.env.TERM !== "dumb";
  const paint = (open: number, close: number) => (text: string) =>
    enabled && text !== "" ? `\x1b[${open}m${text}\x1b[${close}m` : text;
  return {
    enabled,
    bold: paint(1, 22),
    dim: paint(2, 22),
    red: paint(31, 39),
    green: paint(32, 39),
    yellow: paint(33, 39),
  };
}
