/**
 * Reads `.claude/stall-watch.jsonc` (JSONC): every problem is reported with line and column, and
 * whatever is usable is still used.
 *
 * @module
 */

import { networkPathReason, resolvePath } from "../shared/paths.ts";
import { describe } from "../shared/errors.ts";
import {
  readRegularText,
  UnreadableFileError,
} from "../shared/regular_file.ts";
import type { Node, ParseError } from "../../vendor/jsonc-parser/main.js";
import {
  CONFIG_KEYS,
  type ConfigValue,
  type SettingProblem,
} from "./settings.ts";

/** Default location, relative to the directory the process starts in. */
export const DEFAULT_CONFIG_PATH = ".claude/stall-watch.jsonc";

interface ConfigFile {
  /** The path read, or `null` when there is no config file. */
  path: string | null;
  /** Usable values by dotted key. */
  values: Map<string, ConfigValue>;
  problems: SettingProblem[];
}

type KeySpec = string | { readonly [key: string]: KeySpec };

/** Largest config file read; a real one is well under a kilobyte. */
const MAX_CONFIG_BYTES = 1024 * 1024;

/** Reads and checks the config file at `path` (as problems name it), resolved against `cwd`. */
export async function loadConfigFile(
  path: string,
  cwd?: string,
): Promise<ConfigFile> {
  const network = networkPathReason(path);
  // `\\host\share\c.jsonc` would be read at every stop (an SMB session).
  if (network !== null) return unreadable(path, `${network}, never looked at`);
  const file = cwd === undefined ? path : resolvePath(cwd, path);
  let text: string | null;
  try {
    // No FIFO, no /dev/zero, no link out of the start directory (item 27).
    text = readRegularText(file, "config file", MAX_CONFIG_BYTES, {
      inside: cwd ?? Deno.cwd(),
    });
  } catch (error) {
    return unreadable(
      path,
      error instanceof UnreadableFileError ? error.reason : describe(error),
    );
  }
  // A `.claude` that is a file (NotADirectory) holds no config file either.
  if (text === null) return { path: null, values: new Map(), problems: [] };
  return await parseConfigText(text, path);
}

function unreadable(path: string, reason: string): ConfigFile {
  const message = `cannot read the config file: ${reason}`;
  return { path, values: new Map(), problems: [{ source: path, message }] };
}

/** Parses config text; `name` is the file problems name. */
export async function parseConfigText(
  text: string,
  name: string,
): Promise<ConfigFile> {
  // Loaded lazily: only when a config file exists.
  const { parseTree, printParseErrorCode } = await import(
    "../../vendor/jsonc-parser/main.js"
  );
  const errors: ParseError[] = [];
  let root: Node | undefined;
  try {
    root = parseTree(text, errors, { allowTrailingComma: true });
  } catch (error) {
    // The parser recurses per nesting level; no real config nests past two.
    if (!(error instanceof RangeError)) throw error;
    return {
      path: name,
      values: new Map(),
      problems: [{ source: name, message: "syntax error: nested too deeply" }],
    };
  }
  const problems = new ProblemList(name, lineColumnFinder(text));
  for (const e of errors) {
    problems.add(
      e.offset,
      `syntax error: ${parseErrorWords(printParseErrorCode(e.error))}`,
    );
  }
  const values = new Map<string, ConfigValue>();
  if (errors.length === 0 && root?.type === "object") {
    collect(root, CONFIG_KEYS, "", values, problems);
  } else if (errors.length === 0) {
    problems.add(root?.offset ?? 0, "the config must be a JSON object");
  }
  return { path: name, values, problems: problems.list() };
}

/** At most this many of a config file's problems are reported, then a count of the rest. */
export const MAX_CONFIG_PROBLEMS = 10;

/** A file's first {@link MAX_CONFIG_PROBLEMS} problems, then a count of the rest (item 11). */
class ProblemList {
  #name: string;
  #where: (offset: number) => string;
  #kept: SettingProblem[] = [];
  #more = 0;

  constructor(name: string, where: (offset: number) => string) {
    this.#name = name;
    this.#where = where;
  }

  /** `<file>:<line>:<column>` of a character offset. */
  locate(offset: number): string {
    return `${this.#name}:${this.#where(offset)}`;
  }

  add(offset: number, message: string): void {
    if (this.#kept.length >= MAX_CONFIG_PROBLEMS) {
      this.#more++;
      return;
    }
    this.#kept.push({ source: this.locate(offset), message });
  }

  /** The problems to report, the count of the rest last. */
  list(): SettingProblem[] {
    if (this.#more === 0) return this.#kept;
    return [...this.#kept, {
      source: this.#name,
      message: `${this.#more.toLocaleString("en-US")} more problem${
        this.#more === 1 ? "" : "s"
      } not listed`,
    }];
  }
}

function collect(
  object: Node,
  spec: { readonly [key: string]: KeySpec },
  prefix: string,
  values: Map<string, ConfigValue>,
  problems: ProblemList,
): void {
  for (const property of object.children ?? []) {
    const [keyNode, valueNode] = property.children ?? [];
    if (!keyNode || !valueNode) continue;
    const key = String(keyNode.value);
    const dotted = prefix + key;
    const expected = Object.hasOwn(spec, key) ? spec[key] : undefined;
    if (expected === undefined) {
      const known = Object.keys(spec).filter((k) => k !== "$schema").join(", ");
      problems.add(
        keyNode.offset,
        `unknown key "${dotted}" (known here: ${known})`,
      );
      continue;
    }
    if (typeof expected !== "string") {
      if (valueNode.type === "object") {
        collect(valueNode, expected, `${dotted}.`, values, problems);
      } else {
        problems.add(
          valueNode.offset,
          `"${dotted}" must be an object, got ${valueNode.type}`,
        );
      }
      continue;
    }
    if (!hasType(valueNode, expected)) {
      problems.add(
        valueNode.offset,
        `"${dotted}" must be ${article(expected)}, got ${valueNode.type}`,
      );
      continue;
    }
    values.set(dotted, {
      value: valueNode.value,
      where: problems.locate(valueNode.offset),
    });
  }
}

function hasType(node: Node, expected: string): boolean {
  return expected === "integer"
    ? node.type === "number" && Number.isInteger(node.value)
    : node.type === expected;
}

function article(type: string): string {
  return /^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`;
}

/** 1-based `line:column` of a character offset. */
export function lineColumn(text: string, offset: number): string {
  return lineColumnFinder(text)(offset);
}

/** `line:column` of offsets: a binary search of line starts found once (a scan each took 30 s). */
function lineColumnFinder(text: string): (offset: number) => string {
  let starts: number[] | null = null;
  return (offset) => {
    if (starts === null) {
      starts = [0];
      for (let i = text.indexOf("\n"); i >= 0; i = text.indexOf("\n", i + 1)) {
        starts.push(i + 1);
      }
    }
    const at = Math.max(0, Math.min(offset, text.length));
    let low = 0; // starts[low] <= at < starts[high]
    let high = starts.length;
    while (high - low > 1) {
      const mid = (low + high) >>> 1;
      if (starts[mid]! <= at) low = mid;
      else high = mid;
    }
    return `${low + 1}:${offset - starts[low]! + 1}`;
  };
}

/** What each of the JSON parser's error names means, in words. */
const PARSE_ERROR_WORDS: Readonly<Record<string, string>> = {
  InvalidSymbol: "unexpected character",
  InvalidNumberFormat: "malformed number",
  PropertyNameExpected: "property name expected (a trailing comma?)",
  ValueExpected: "value expected",
  ColonExpected: '":" expected',
  CommaExpected: '"," expected',
  CloseBraceExpected: '"}" expected',
  CloseBracketExpected: '"]" expected',
  EndOfFileExpected: "text after the end of the JSON value",
  InvalidCommentToken: "a comment, which strict JSON does not allow",
  UnexpectedEndOfComment: "a comment that never ends",
  UnexpectedEndOfString: "a string that never ends",
  UnexpectedEndOfNumber: "a number cut short",
  InvalidUnicode: 'malformed "\\u" escape',
  InvalidEscapeCharacter: "invalid escape character",
  InvalidCharacter: "invalid character in a string",
};

/** A parser error name (`printParseErrorCode`) in words a user can act on. */
export function parseErrorWords(name: string): string {
  return PARSE_ERROR_WORDS[name] ?? "syntax error";
}
