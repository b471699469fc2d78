/**
 * The list of subcommands. Each command lives in its own module under
 * `src/commands/` and is loaded only when it runs, so the hook (no
 * subcommand) never pays for parsing the others.
 *
 * @module
 */

import type { CliIO } from "../cli_io.ts";

/** What a command module exports. */
export interface CommandModule {
  /** The full `help <command>` text, ending in a newline. */
  help: string;
  /**
   * Runs the command.
   *
   * @param args The arguments after the command name.
   * @returns The exit code (never 2, except the watchdog's wake-up).
   */
  run(args: readonly string[], io: CliIO): Promise<number>;
}

/** One subcommand of the CLI. */
export interface Command {
  /** The word typed after `stall-watch`. */
  name: string;
  /** One line for the command list. */
  summary: string;
  /** Loads the command's module (a literal `import()` so `deno compile` bundles it). */
  load(): Promise<CommandModule>;
}

/** Every subcommand, in the order `--help` lists them. */
export const COMMANDS: readonly Command[] = [
  {
    name: "install",
    summary: "register stall-watch in a Claude Code settings file",
    load: () => import("./install.ts"),
  },
  {
    name: "uninstall",
    summary: "remove stall-watch's handlers from a settings file",
    load: () => import("./uninstall.ts"),
  },
  {
    name: "doctor",
    summary: "check the set-up, with a fix for each problem",
    load: () => import("./doctor.ts"),
  },
  {
    name: "watch",
    summary: "wake a session that never answered a tool result (PostToolUse)",
    load: () => import("./watch.ts"),
  },
  {
    name: "scan",
    summary: "show what the hook would decide for a transcript (or every turn)",
    load: () => import("./scan.ts"),
  },
  {
    name: "audit",
    summary: "count the stalls in every past session, by kind, tool and server",
    load: () => import("./audit.ts"),
  },
  {
    name: "log",
    summary: "summarise the event log: decisions, stalls, recoveries, cap hits",
    load: () => import("./log.ts"),
  },
  {
    name: "reset",
    summary: "clear the retry and cooldown state of one session or all",
    load: () => import("./reset.ts"),
  },
];
