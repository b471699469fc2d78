/**
 * The list of subcommands. Each command lives in its own module under
 * `src/commands/` and is loaded only when it runs, so the hook (no
 * subcommand) never pays for parsing the others.
 *
 * @module
 */

import type { CliIO } from "../shared/cli_io.ts";
import { importLazily } from "../shared/lazy_import.ts";

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
  /** Loads the command's module (at run time only; see `lazy_import.ts`). */
  load(): Promise<CommandModule>;
}

/** Every subcommand, in the order `--help` lists them. */
export const COMMANDS: readonly Command[] = [
  {
    name: "install",
    summary: "register stall-watch in a Claude Code settings file",
    load: () => loadCommand("install"),
  },
  {
    name: "uninstall",
    summary: "remove stall-watch's handlers from a settings file",
    load: () => loadCommand("uninstall"),
  },
  {
    name: "doctor",
    summary: "check the set-up, with a fix for each problem",
    load: () => loadCommand("doctor"),
  },
  {
    name: "watch",
    summary: "wake a session that never answered a tool result (PostToolUse)",
    load: () => loadCommand("watch"),
  },
  {
    name: "codex-stop",
    summary: "the Stop hook for OpenAI's Codex CLI (install --codex)",
    load: () => loadCommand("codex_stop"),
  },
  {
    name: "statusline",
    summary:
      "name a tool call running for minutes with no result (status line)",
    load: () => loadCommand("statusline"),
  },
  {
    name: "scan",
    summary: "show what the hook would decide for a transcript (or every turn)",
    load: () => loadCommand("scan"),
  },
  {
    name: "audit",
    summary: "count the stalls in every past session, by kind, tool and server",
    load: () => loadCommand("audit"),
  },
  {
    name: "log",
    summary: "summarise the event log: decisions, stalls, recoveries, cap hits",
    load: () => loadCommand("log"),
  },
  {
    name: "reset",
    summary: "clear the retry and cooldown state of one session or all",
    load: () => loadCommand("reset"),
  },
];

function loadCommand(name: string): Promise<CommandModule> {
  return importLazily<CommandModule>(`./${name}.ts`, import.meta.url);
}
