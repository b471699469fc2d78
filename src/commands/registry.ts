/**
 * The list of subcommands. Each command lives in its own module under
 * `src/commands/` and is registered here once.
 *
 * @module
 */

import type { CliIO } from "../cli_io.ts";

/** One subcommand of the CLI. */
export interface Command {
  /** The word typed after `stall-watch`. */
  name: string;
  /** One line for the command list. */
  summary: string;
  /** The full `help <command>` text, ending in a newline. */
  help: string;
  /**
   * Runs the command.
   *
   * @param args The arguments after the command name.
   * @returns The exit code (never 2).
   */
  run(args: readonly string[], io: CliIO): Promise<number>;
}

/** Every subcommand, in the order `--help` lists them. */
export const COMMANDS: readonly Command[] = [];
