/**
 * Command-line dispatch. No arguments = the Stop hook; otherwise a command.
 *
 * Every failure ends here as one line on stderr and a documented exit code;
 * exit 2 is produced only by the hook's block decision.
 *
 * @module
 */

import type { CliIO } from "./shared/cli_io.ts";
import { type Command, COMMANDS } from "./commands/registry.ts";
import {
  describe,
  ExitCode,
  StallWatchError,
  UsageError,
} from "./shared/errors.ts";
import { runHook } from "./hook/hook.ts";
import { VERSION } from "./shared/version.ts";
import { sanitizeTerminalStream } from "./shared/terminal_text.ts";

/** Largest hook payload read from stdin. */
export const MAX_PAYLOAD_BYTES = 32 * 1024 * 1024;

/**
 * Runs the CLI and returns the process exit code.
 *
 * @param args Command-line arguments without the program name.
 * @param io The process boundary.
 */
export async function main(
  args: readonly string[],
  unsafeIO: CliIO,
): Promise<number> {
  const io = guardedIO(unsafeIO);
  try {
    return await dispatch(args, io);
  } catch (error) {
    if (error instanceof StallWatchError) {
      io.writeStderr(`stall-watch: ${describe(error)}\n`);
      return error.exitCode;
    }
    io.writeStderr(`stall-watch: internal error: ${describe(error)}\n`);
    return ExitCode.internalError;
  }
}

/**
 * `io` whose writes pass {@link sanitizeTerminalStream}: whatever attacker
 * text a command forgot to escape, no control sequence leaves the process.
 */
function guardedIO(io: CliIO): CliIO {
  return {
    ...io,
    writeStdout: (text) => io.writeStdout(sanitizeTerminalStream(text)),
    writeStderr: (text) => io.writeStderr(sanitizeTerminalStream(text)),
  };
}

async function dispatch(args: readonly string[], io: CliIO): Promise<number> {
  const [first, ...rest] = args;
  if (first === undefined) return await hookCommand(io);
  if (first === "--version" || first === "-V" || first === "version") {
    io.writeStdout(`stall-watch ${VERSION}\n`);
    return ExitCode.ok;
  }
  if (first === "--help" || first === "-h") {
    io.writeStdout(overview());
    return ExitCode.ok;
  }
  if (first === "help") return await help(rest, io);
  const command = COMMANDS.find((c) => c.name === first);
  if (!command) {
    const kind = first.startsWith("-") ? "option" : "command";
    throw new UsageError(
      `Unknown ${kind} "${first}": run "stall-watch --help" for the list`,
    );
  }
  const module = await command.load();
  if (rest.includes("--help") || rest.includes("-h")) {
    io.writeStdout(module.help);
    return ExitCode.ok;
  }
  return await module.run(rest, io);
}

async function hookCommand(io: CliIO): Promise<number> {
  if (io.stdinIsTerminal) {
    // A person ran it by hand: explain instead of waiting for a payload.
    io.writeStderr(overview());
    return ExitCode.usage;
  }
  const payload = await io.readStdin(MAX_PAYLOAD_BYTES);
  const outcome = await runHook(payload, io);
  if (outcome.stdout) io.writeStdout(outcome.stdout);
  if (outcome.stderr) io.writeStderr(outcome.stderr);
  return outcome.exitCode;
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
  const command = COMMANDS.find((c) => c.name === name);
  if (!command) {
    throw new UsageError(
      `Unknown command "${name}": run "stall-watch --help" for the list`,
    );
  }
  io.writeStdout((await command.load()).help);
  return ExitCode.ok;
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
    "Commands:",
    ...rows,
    "",
    "Exit codes: 0 allow / success, 1 bad input, 2 block (hook) or wake (watch),",
    "3 internal error, 64 usage error.",
    "",
  ].join("\n");
}
