/**
 * A small option parser for subcommands: `--name value`, `--name=value`,
 * `--flag`; anything unknown is a usage error (exit 64), never ignored.
 *
 * @example
 * ```ts
 * const { options, positionals } = parseCommandLine("scan", args, { json: "flag" }, 1);
 * ```
 *
 * @module
 */

import type { CliIO } from "./cli_io.ts";
import { UsageError } from "./errors.ts";

/** What each option takes: nothing or one value. */
export type OptionSpec = Readonly<Record<string, "flag" | "value">>;

/** Parsed options: `true` for flags that were given, the text for values. */
export type ParsedOptions = Record<string, string | true | undefined>;

/** Parses `args` against `spec` (keys without `--`); no positional arguments. */
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

/** {@link parseOptions} with up to `maxPositionals` positionals (after `--` when they start with `-`). */
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

/** A whole number of seconds in `[min, max]` from an option value. */
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

/** `--since` in epoch ms: a date (UTC midnight), an ISO 8601 date-time, or `30m`, `12h`, `7d`, `2w` back. */
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

/** `did you mean "<prefix>x"? Run ...` for the candidate at most two edits from `word` (or the only one it starts), else `hint`. */
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

/** The payload a hook or the status line reads on stdin; an argument, or a terminal on stdin (`onTerminal` says what to do), is a usage error. */
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
