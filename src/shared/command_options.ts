/**
 * A small option parser for subcommands: `--name value`, `--name=value`
 * and boolean `--flag`. Anything it does not know is a usage error (exit
 * 64), never silently ignored.
 *
 * @module
 */

import type { CliIO } from "./cli_io.ts";
import { UsageError } from "./errors.ts";

/** What each option takes: nothing (`flag`) or one value (`value`). */
export type OptionSpec = Readonly<Record<string, "flag" | "value">>;

/** Parsed options: `true` for flags that were given, the text for values. */
export type ParsedOptions = Record<string, string | true | undefined>;

/**
 * Parses `args` against `spec` (keys without the leading `--`).
 *
 * @param command The command name, for error messages.
 * @throws {UsageError} For unknown options, missing values, values given to
 * flags, and positional arguments.
 */
export function parseOptions(
  command: string,
  args: readonly string[],
  spec: OptionSpec,
): ParsedOptions {
  return parseCommandLine(command, args, spec, 0).options;
}

/** Options plus the positional arguments of a command line. */
export interface CommandLine {
  options: ParsedOptions;
  positionals: string[];
}

/**
 * Like {@link parseOptions}, for commands that also take up to
 * `maxPositionals` positional arguments. A positional starting with `-`
 * goes after `--`.
 *
 * @throws {UsageError} As {@link parseOptions}, and for surplus positional
 * arguments.
 */
export function parseCommandLine(
  command: string,
  args: readonly string[],
  spec: OptionSpec,
  maxPositionals: number,
): CommandLine {
  const parsed: ParsedOptions = {};
  const positionals: string[] = [];
  const hint = `run "stall-watch help ${command}"`;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    if (!arg.startsWith("--") || arg === "--") {
      if (maxPositionals > 0 && arg === "--") {
        positionals.push(...args.slice(i + 1));
        break;
      }
      if (maxPositionals > 0 && arg.startsWith("-") && arg !== "-") {
        throw new UsageError(
          `Unknown option "${arg}" for "${command}": ${hint}`,
        );
      }
      if (positionals.length < maxPositionals) {
        positionals.push(arg);
        continue;
      }
      throw new UsageError(
        `Unexpected argument "${arg}" for "${command}": ${hint}`,
      );
    }
    const eq = arg.indexOf("=");
    const name = arg.slice(2, eq === -1 ? undefined : eq);
    const kind = Object.hasOwn(spec, name) ? spec[name] : undefined;
    if (kind === undefined) {
      throw new UsageError(
        `Unknown option "--${name}" for "${command}": ${
          didYouMean(name, Object.keys(spec), "--", hint)
        }`,
      );
    }
    if (kind === "flag") {
      if (eq !== -1) {
        throw new UsageError(`Option "--${name}" takes no value: ${hint}`);
      }
      parsed[name] = true;
      continue;
    }
    const value = eq !== -1 ? arg.slice(eq + 1) : args[++i];
    if (value === undefined || value === "") {
      throw new UsageError(`Option "--${name}" needs a value: ${hint}`);
    }
    parsed[name] = value;
  }
  if (positionals.length > maxPositionals) {
    throw new UsageError(
      `Unexpected argument "${
        positionals[maxPositionals]
      }" for "${command}": ${hint}`,
    );
  }
  return { options: parsed, positionals };
}

/**
 * Reads a whole number of seconds from an option value.
 *
 * @throws {UsageError} When it is not an integer in `[min, max]`.
 */
export function parseSeconds(
  name: string,
  value: string,
  min: number,
  max: number,
): number {
  const seconds = /^\d+$/.test(value) ? Number(value) : NaN;
  if (!Number.isSafeInteger(seconds) || seconds < min || seconds > max) {
    throw new UsageError(
      `Bad value for "--${name}": "${value}" is not a whole number of seconds from ${min} to ${max}`,
    );
  }
  return seconds;
}

const DATE =
  /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/;

/** Milliseconds per unit of a relative `--since` such as `7d`. */
const UNIT_MS: Readonly<Record<string, number>> = {
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
  w: 7 * 86_400_000,
};

/**
 * Parses `--since`: a date (UTC midnight), an ISO 8601 date-time, or a
 * time back from `nowMs` such as `30m`, `12h`, `7d` or `2w`.
 *
 * @returns Milliseconds since the epoch.
 * @throws {UsageError} For anything else.
 */
export function parseSince(text: string, nowMs: number): number {
  const relative = /^(\d{1,6})([mhdw])$/.exec(text);
  if (relative) {
    return nowMs - Number(relative[1]) * (UNIT_MS[relative[2] as string] ?? 0);
  }
  const ms = DATE.test(text) ? Date.parse(text.replace(" ", "T")) : NaN;
  if (!Number.isFinite(ms)) {
    throw new UsageError(
      `Bad value for "--since": "${text}" is not a date like 2026-03-01, 2026-03-01T09:00:00Z, or a time back such as 7d, 12h, 30m, 2w`,
    );
  }
  return ms;
}

/**
 * `did you mean "x"? Run ...` for the candidate closest to a mistyped
 * `word` (at most two edits away, or the only one it starts), else `hint`
 * (`run "stall-watch ..."`) as it is.
 *
 * @param prefix Put before the name shown (e.g. `--` for options).
 */
export function didYouMean(
  word: string,
  candidates: readonly string[],
  prefix: string,
  hint: string,
): string {
  let best: string | null = null;
  let bestDistance = 3;
  for (const candidate of candidates) {
    const distance = editDistance(word.toLowerCase(), candidate);
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  if (best === null && word.length >= 2) {
    const starts = candidates.filter((c) => c.startsWith(word.toLowerCase()));
    if (starts.length === 1) best = starts[0] as string;
  }
  if (best === null) return hint;
  return `did you mean "${prefix}${best}"? ${hint[0]?.toUpperCase()}${
    hint.slice(1)
  }`;
}

/** Levenshtein distance (insertions, deletions, substitutions). */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(
        (previous[j] as number) + 1,
        (current[j - 1] as number) + 1,
        (previous[j - 1] as number) + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
    }
    previous = current;
  }
  return previous[b.length] as number;
}

/**
 * The payload a command Claude Code runs (a hook, the status line) reads on
 * stdin, up to `limitBytes`. It takes no arguments, and a terminal on stdin
 * means a person ran it by hand.
 *
 * @param onTerminal The usage error's text for a terminal on stdin.
 * @throws {UsageError} For an argument or a terminal on stdin.
 * @throws {InputError} Beyond `limitBytes` (see `CliIO.readStdin`).
 */
export async function stdinPayload(
  command: string,
  args: readonly string[],
  io: Pick<CliIO, "stdinIsTerminal" | "readStdin">,
  limitBytes: number,
  onTerminal: string,
): Promise<string> {
  if (args.length > 0) {
    throw new UsageError(
      `Unexpected argument "${
        args[0]
      }" for "${command}": it takes none, run "stall-watch help ${command}"`,
    );
  }
  if (io.stdinIsTerminal) throw new UsageError(onTerminal);
  return await io.readStdin(limitBytes);
}
