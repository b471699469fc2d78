/**
 * Exit codes and the errors that map every failure to one line and one
 * documented exit code ({@link runGuarded}); no error may ever produce exit 2.
 *
 * @example
 * ```ts
 * Deno.exit(await runGuarded(realIO(), (io) => run(args, io)));
 * ```
 *
 * @module
 */

import type { CliIO } from "./cli_io.ts";
import { escapeTerminal, sanitizeTerminalStream } from "./terminal_text.ts";

/** The documented exit codes. */
export const ExitCode = Object.freeze({
  /** Allow the stop (or a command succeeded). */
  ok: 0,
  /** Bad input: unusable payload, unreadable transcript, broken file. */
  inputError: 1,
  /** The hook blocks the stop: a stall needs recovery. */
  block: 2,
  /** An unexpected internal error (a bug); the stop is allowed. */
  internalError: 3,
  /** A command-line usage error: unknown command or flag, bad value. */
  usage: 64,
});

/** An error whose message is one line fit for the user, with an exit code. */
export class StallWatchError extends Error {
  readonly exitCode: number;

  /** `message`: one line, the failed action first; `exitCode`: never 2. */
  constructor(message: string, exitCode: number) {
    super(message);
    this.name = "StallWatchError";
    this.exitCode = exitCode === ExitCode.block
      ? ExitCode.internalError
      : exitCode;
  }
}

/** Input the hook or a command cannot use (exit 1). */
export class InputError extends StallWatchError {
  constructor(message: string) {
    super(message, ExitCode.inputError);
    this.name = "InputError";
  }
}

/** A transcript that exists but cannot be read as a file (exit 1). */
export class TranscriptError extends InputError {
  constructor(message: string) {
    super(message);
    this.name = "TranscriptError";
  }
}

/** A command-line mistake (exit 64). */
export class UsageError extends StallWatchError {
  constructor(message: string) {
    super(message, ExitCode.usage);
    this.name = "UsageError";
  }
}

const MAX_LINE_CHARS = 1000;

/** One escaped line of at most 1000 characters describing a thrown value (a hostile path must not flood or forge it). */
export function describe(error: unknown): string {
  const message = osErrorWords(error) ??
    (error instanceof Error ? error.message : String(error));
  const line = escapeTerminal((message.split("\n")[0] ?? "").trim()) ||
    "unknown error";
  return clipMiddle(line, MAX_LINE_CHARS);
}

/** `text`, or its ends joined by `…` when longer than `max`; no surrogate pair is split. */
export function clipMiddle(text: string, max: number): string {
  if (text.length <= max) return text;
  const keep = Math.floor((max - 1) / 2);
  const head = isHighSurrogate(text.charCodeAt(keep - 1)) ? keep - 1 : keep;
  const from = text.length - keep;
  const tail = isLowSurrogate(text.charCodeAt(from)) ? from + 1 : from;
  return `${text.slice(0, head)}…${text.slice(tail)}`;
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

/** Deno's file-system errors by class and by code, in words (the caller names the path). */
const OS_ERROR_WORDS: ReadonlyArray<[string, string, string]> = [
  ["NotFound", "ENOENT", "it does not exist"],
  ["PermissionDenied", "EACCES", "permission denied"],
  // Windows: a folder's read is os error 1, a plain Error with code EISDIR.
  ["IsADirectory", "EISDIR", "it is a directory"],
  ["NotADirectory", "ENOTDIR", "it (or a folder on its path) is not a folder"],
  ["AlreadyExists", "EEXIST", "it already exists"],
  ["FilesystemLoop", "ELOOP", "too many levels of symbolic links"],
];

/** A Deno file-system error in plain words (not "os error 2: stat '/x'"), else `null`. */
function osErrorWords(error: unknown): string | null {
  if (!(error instanceof Error)) return null;
  const code = (error as { code?: unknown }).code;
  for (const [name, errorCode, words] of OS_ERROR_WORDS) {
    const type = (Deno.errors as Record<string, unknown>)[name];
    if (typeof type === "function" && error instanceof type) return words;
    if (code === errorCode) return words;
  }
  const raw = /^(.*?) \(os error \d+\)(?:: [a-z_]+ '.*')?$/s.exec(
    error.message,
  );
  return raw ? (raw[1] as string) : null;
}

/**
 * Runs one step of the CLI: its writes pass {@link sanitizeTerminalStream}
 * (unescaped attacker text emits no control sequence), what it throws ends as
 * one line on stderr and an exit code.
 */
export async function runGuarded(
  unsafeIO: CliIO,
  step: (io: CliIO) => Promise<number>,
): Promise<number> {
  const io: CliIO = {
    ...unsafeIO,
    writeStdout: (text) => unsafeIO.writeStdout(sanitizeTerminalStream(text)),
    writeStderr: (text) => unsafeIO.writeStderr(sanitizeTerminalStream(text)),
  };
  try {
    return await step(io);
  } catch (error) {
    if (error instanceof StallWatchError) {
      io.writeStderr(`stall-watch: ${describe(error)}\n`);
      return error.exitCode;
    }
    io.writeStderr(`stall-watch: internal error: ${describe(error)}\n`);
    return ExitCode.internalError;
  }
}
