/**
 * Command-line dispatch: no arguments, the Stop hook from source (`main.ts`
 * runs a real stop from the bundle); otherwise a command, under `runGuarded`.
 *
 * @module
 */

import type { CliIO, ColorChoice } from "./shared/cli_io.ts";
import { didYouMean } from "./shared/command_options.ts";
import { type Command, COMMANDS } from "./commands/registry.ts";
import { ExitCode, runGuarded, UsageError } from "./shared/errors.ts";
import { importLazily } from "./shared/lazy_import.ts";
import { VERSION } from "./shared/version.ts";

/** Runs the CLI on the arguments after the program name; returns the exit code. */
export async function main(
  args: readonly string[],
  unsafeIO: CliIO,
): Promise<number> {
  return await runGuarded(unsafeIO, (io) => dispatch(args, io));
}

async function dispatch(
  argv: readonly string[],
  baseIO: CliIO,
): Promise<number> {
  const { args, color } = takeColorOption(argv);
  const io: CliIO = color === null ? baseIO : { ...baseIO, color };
  const [first, ...rest] = args;
  if (first === undefined) {
    if (color !== null) {
      throw new UsageError(
        `"--color" goes with a command: run "stall-watch --help" for the list`,
      );
    }
    return await hookCommand(io);
  }
  if (first === "--version" || first === "-V" || first === "version") {
    io.writeStdout(`stall-watch ${VERSION}\n`);
    return ExitCode.ok;
  }
  if (first === "--help" || first === "-h") {
    io.writeStdout(overview());
    return ExitCode.ok;
  }
  if (first === "help") return await help(rest, io);
  if (first.startsWith("-")) {
    throw new UsageError(
      `Unknown option "${first}": ${
        didYouMean(first.replace(/^-+/, ""), ["help", "version"], "--", LIST)
      }`,
    );
  }
  const module = await commandNamed(first).load();
  if (rest.includes("--help") || rest.includes("-h")) {
    io.writeStdout(module.help);
    return ExitCode.ok;
  }
  return await module.run(rest, io);
}

async function hookCommand(io: CliIO): Promise<number> {
  if (io.stdinIsTerminal) {
    io.writeStderr(
      "stall-watch: no command given, and stdin is a terminal: without a command, stall-watch is the Stop hook and reads the payload Claude Code pipes to it. To try it: stall-watch doctor, or stall-watch audit\n\n" +
        overview(),
    );
    return ExitCode.usage;
  }
  const { stopHookStep } = await importLazily<
    typeof import("./hook/stop_hook.ts")
  >("./hook/stop_hook.ts", import.meta.url);
  return await stopHookStep(io);
}

async function help(args: readonly string[], io: CliIO): Promise<number> {
  const [name, ...extra] = args;
  if (name === undefined) {
    io.writeStdout(overview());
    return ExitCode.ok;
  }
  if (extra.length > 0) {
    throw new UsageError(`"help" takes one command name, got ${args.length}`);
  }
  if (name === "help") {
    io.writeStdout(HELP_HELP);
    return ExitCode.ok;
  }
  io.writeStdout((await commandNamed(name).load()).help);
  return ExitCode.ok;
}

const LIST = 'run "stall-watch --help" for the list';

/** The command called `name`, or the usage error naming the nearest. */
function commandNamed(name: string): Command {
  const command = COMMANDS.find((c) => c.name === name);
  if (command) return command;
  throw new UsageError(
    `Unknown command "${name}": ${didYouMean(name, COMMAND_WORDS, "", LIST)}`,
  );
}

/** Every word that may follow `stall-watch`, for did-you-mean. */
const COMMAND_WORDS: readonly string[] = [
  ...COMMANDS.map((c) => c.name),
  "help",
  "version",
];

const HELP_HELP = `stall-watch help: show help

Usage:
  stall-watch help              the overview: commands and exit codes
  stall-watch help <command>    one command's options and output
  stall-watch <command> --help  the same

Exit codes: 0 shown, 64 unknown command.
`;

/** Takes the global `--color WHEN` / `--color=WHEN` out of the arguments (before a `--`); a bad value is a `UsageError`. */
function takeColorOption(
  argv: readonly string[],
): { args: string[]; color: ColorChoice | null } {
  const args: string[] = [];
  let color: ColorChoice | null = null;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === "--") {
      args.push(...argv.slice(i));
      break;
    }
    if (arg !== "--color" && !arg.startsWith("--color=")) {
      args.push(arg);
      continue;
    }
    const value = arg === "--color" ? argv[++i] : arg.slice("--color=".length);
    if (value !== "auto" && value !== "always" && value !== "never") {
      throw new UsageError(
        `Bad value for "--color": ${
          value === undefined ? "none given" : `"${value}"`
        }; use auto, always or never`,
      );
    }
    color = value;
  }
  return { args, color };
}

/** The `--help` text: usage, commands, exit codes. */
export function overview(): string {
  const width = Math.max(...COMMANDS.map((c) => c.name.length), 4);
  const rows = COMMANDS.map((c: Command) =>
    `  ${c.name.padEnd(width)}  ${c.summary}`
  );
  return [
    `stall-watch ${VERSION}: a Claude Code Stop hook that nudges sessions`,
    "stalled on a tool call back to work.",
    "",
    "Usage:",
    "  stall-watch < payload.json     run as the Stop/SubagentStop hook",
    "  stall-watch <command> [options]",
    "  stall-watch help <command>",
    "",
    "Options for every command:",
    "  --color auto|always|never  colour (default auto: a terminal, unless",
    "                             NO_COLOR is set; FORCE_COLOR=1 forces it)",
    "",
    "Commands:",
    ...rows,
    "",
    "Exit codes: 0 allow / success, 1 bad input, 2 block (hook) or wake (watch),",
    "3 internal error, 64 usage error.",
    "",
  ].join("\n");
}
