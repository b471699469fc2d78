/**
 * Reads `.claude/stall-watch.jsonc`: JSON with comments and trailing commas.
 *
 * Syntax errors are collected (not thrown) and reported with line and column;
 * unknown keys and wrongly typed values are reported too. Whatever is usable
 * is still used, and the rest falls back to defaults.
 *
 * @module
 */

import { resolvePath } from "../shared/paths.ts";
import { describe } from "../shared/errors.ts";
import {
  readRegularText,
  UnreadableFileError,
} from "../shared/regular_file.ts";
import type { ParseError } from "../../vendor/jsonc-parser/main.js";
import {
  CONFIG_KEYS,
  type ConfigValue,
  type SettingProblem,
} from "./settings.ts";

/** Default location, relative to the directory the process starts in. */
export const DEFAULT_CONFIG_PATH = ".claude/stall-watch.jsonc";

/** The parsed file. */
export interface ConfigFile {
  /** The path read, or `null` when there is no config file. */
  path: string | null;
  /** Usable values by dotted key. */
  values: Map<string, ConfigValue>;
  problems: SettingProblem[];
}

type KeySpec = string | { readonly [key: string]: KeySpec };

/** The jsonc-parser node shape we use. */
interface JsonNode {
  type:
    | "object"
    | "array"
    | "property"
    | "string"
    | "number"
    | "boolean"
    | "null";
  value?: unknown;
  offset: number;
  children?: JsonNode[];
}

/** Largest config file read; a real one is well under a kilobyte. */
export const MAX_CONFIG_BYTES = 1024 * 1024;

/**
 * Reads and checks the config file. Requires `--allow-read`.
 *
 * @param path The config path (`STALL_WATCH_CONFIG` or the default), as
 * problems name it.
 * @param cwd The directory a relative `path` is resolved against (default:
 * the process's working directory).
 * @returns Empty values when the file does not exist.
 */
export async function loadConfigFile(
  path: string,
  cwd?: string,
): Promise<ConfigFile> {
  const file = cwd === undefined ? path : resolvePath(cwd, path);
  let text: string | null;
  try {
    // A FIFO would block the hook forever, and a device such as /dev/zero
    // (a symlink in a cloned repo will do) never ends.
    text = readRegularText(file, "config file", MAX_CONFIG_BYTES);
  } catch (error) {
    const reason = error instanceof UnreadableFileError
      ? error.reason
      : describe(error);
    return {
      path,
      values: new Map(),
      problems: [{
        source: path,
        message: `cannot read the config file: ${reason}`,
      }],
    };
  }
  // A `.claude` that is a file (NotADirectory) holds no config file either.
  if (text === null) return { path: null, values: new Map(), problems: [] };
  return await parseConfigText(text, path);
}

/**
 * Parses config text. The parser is loaded only when a config file exists,
 * so hooks without one do not pay for it.
 *
 * @param text The file's contents.
 * @param name The file name used in problem locations.
 */
export async function parseConfigText(
  text: string,
  name: string,
): Promise<ConfigFile> {
  const { parseTree, printParseErrorCode } = await import(
    "../../vendor/jsonc-parser/main.js"
  );
  const errors: ParseError[] = [];
  let root: JsonNode | undefined;
  try {
    root = parseTree(text, errors, {
      allowTrailingComma: true,
      disallowComments: false,
    }) as JsonNode | undefined;
  } catch (error) {
    // The parser recurses once per nesting level; thousands of levels
    // overflow the stack. No real config nests more than two.
    if (!(error instanceof RangeError)) throw error;
    return {
      path: name,
      values: new Map(),
      problems: [{ source: name, message: "syntax error: nested too deeply" }],
    };
  }
  const where = (offset: number) => `${name}:${lineColumn(text, offset)}`;
  const problems: SettingProblem[] = errors.map((e) => ({
    source: where(e.offset),
    message: `syntax error: ${parseErrorWords(printParseErrorCode(e.error))}`,
  }));
  const values = new Map<string, ConfigValue>();
  if (problems.length > 0) return { path: name, values, problems };
  if (!root || root.type !== "object") {
    problems.push({
      source: where(root?.offset ?? 0),
      message: "the config must be a JSON object",
    });
    return { path: name, values, problems };
  }
  collect(root, CONFIG_KEYS, "", values, problems, where);
  return { path: name, values, problems };
}

function collect(
  object: JsonNode,
  spec: { readonly [key: string]: KeySpec },
  prefix: string,
  values: Map<string, ConfigValue>,
  problems: SettingProblem[],
  where: (offset: number) => string,
): void {
  for (const property of object.children ?? []) {
    const [keyNode, valueNode] = property.children ?? [];
    if (!keyNode || !valueNode) continue;
    const key = String(keyNode.value);
    const dotted = prefix + key;
    const expected = Object.hasOwn(spec, key) ? spec[key] : undefined;
    if (expected === undefined) {
      const known = Object.keys(spec).filter((k) => k !== "$schema").join(", ");
      problems.push({
        source: where(keyNode.offset),
        message: `unknown key "${dotted}" (known here: ${known})`,
      });
      continue;
    }
    if (typeof expected !== "string") {
      if (valueNode.type === "object") {
        collect(valueNode, expected, `${dotted}.`, values, problems, where);
      } else {
        problems.push({
          source: where(valueNode.offset),
          message: `"${dotted}" must be an object, got ${valueNode.type}`,
        });
      }
      continue;
    }
    if (!hasType(valueNode, expected)) {
      problems.push({
        source: where(valueNode.offset),
        message: `"${dotted}" must be ${
          article(expected)
        }, got ${valueNode.type}`,
      });
      continue;
    }
    values.set(dotted, {
      value: valueNode.value,
      where: where(valueNode.offset),
    });
  }
}

function hasType(node: JsonNode, expected: string): boolean {
  if (expected === "integer") {
    return node.type === "number" && Number.isInteger(node.value);
  }
  return node.type === expected;
}

function article(type: string): string {
  return /^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`;
}

/** 1-based `line:column` of a character offset. */
export function lineColumn(text: string, offset: number): string {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < offset && i < text.length; i++) {
    if (text.charCodeAt(i) === 10) {
      line++;
      lineStart = i + 1;
    }
  }
  return `${line}:${offset - lineStart + 1}`;
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

/**
 * A parser error name (from `printParseErrorCode`) in words a user can act
 * on: `PropertyNameExpected` reads "property name expected (a trailing
 * comma?)".
 */
export function parseErrorWords(name: string): string {
  return PARSE_ERROR_WORDS[name] ?? "syntax error";
}
