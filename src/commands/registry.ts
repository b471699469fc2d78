/**
 * The subcommands, each loaded only when it runs: the hook never parses them.
 *
 * @module
 */

import type { CliIO } from "../shared/cli_io.ts";
import { importLazily } from "../shared/lazy_import.ts";

/** What a command module exports. */
interface CommandModule {
  /** The full `help <command>` text, ending in a newline. */
  help: string;
  /** Runs the command on the arguments after its name: never exit 2 but the watchdog's. */
  run(args: readonly string[], io: CliIO): Promise<number>;
}

/** One subcommand of the CLI; `load` imports its module at run time (`lazy_import.ts`). */
export interface Command {
  name: string;
  summary: string;
  load(): Promise<CommandModule>;
}

/** Every subcommand, in the order `--help` lists them, with its summary. */
export const COMMANDS: readonly Command[] = ([
  ["install", "register stall-watch in a Claude Code settings file"],
  ["uninstall", "remove stall-watch's handlers from a settings file"],
  ["doctor", "check the set-up, with a fix for each problem"],
  ["watch", "wake a session that never answered a tool result (PostToolUse)"],
  ["codex-stop", "the Stop hook for OpenAI's Codex CLI (install --codex)"],
  [
    "statusline",
    "name a tool call running for minutes with no result (status line)",
  ],
  ["scan", "show what the hook would decide for a transcript (or every turn)"],
  ["audit", "count the stalls in every past session, by kind, tool and server"],
  ["log", "summarise the event log: decisions, stalls, recoveries, cap hits"],
  ["reset", "clear the retry and cooldown state of one session or all"],
] as const).map(([name, summary]) => ({
  name,
  summary,
  // `codex-stop` lives in `codex_stop.ts`.
  load: () =>
    importLazily<CommandModule>(
      `./${name.replace("-", "_")}.ts`,
      import.meta.url,
    ),
}));
