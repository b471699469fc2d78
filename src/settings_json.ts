/**
 * Reading and editing Claude Code's `settings.json` without disturbing it.
 *
 * The file must be strict JSON (comments or trailing commas make Claude
 * Code ignore the whole file), so anything else is refused. Edits go
 * through `jsonc-parser`'s `modify` + `applyEdits`: only the changed region
 * is rewritten, in the file's own indentation and line endings, and every
 * other byte stays as it was.
 *
 * Pure: text in, text out.
 *
 * @module
 */

import {
  applyEdits,
  findNodeAtLocation,
  type FormattingOptions,
  type JSONPath,
  modify,
  type Node,
  type ParseError,
  parseTree,
  printParseErrorCode,
} from "jsonc-parser";
import { lineColumn } from "./config_file.ts";
import { InputError } from "./errors.ts";
import { isPlainObject } from "./json_line.ts";

/** A settings file that is not strict JSON, or not shaped like settings. */
export class SettingsFileError extends InputError {
  /** @param message One line naming the file and the problem. */
  constructor(message: string) {
    super(message);
    this.name = "SettingsFileError";
  }
}

/**
 * Parses settings text as strict JSON. Blank text is an empty object (a
 * new or emptied file).
 *
 * @param name The file name used in messages.
 * @throws {SettingsFileError} With line and column for syntax errors,
 * comments and trailing commas; also when the top level is not an object.
 */
export function parseSettingsText(
  text: string,
  name: string,
): Record<string, unknown> {
  if (text.trim() === "") return {};
  if (text.startsWith("\uFEFF")) {
    throw new SettingsFileError(
      `${name} is not strict JSON: it starts with a byte order mark, which makes Claude Code ignore it`,
    );
  }
  const errors: ParseError[] = [];
  parseTree(text, errors, {
    disallowComments: true,
    allowTrailingComma: false,
    allowEmptyContent: false,
  });
  const first = errors[0];
  let value: unknown;
  try {
    if (first !== undefined) throw new SyntaxError();
    value = JSON.parse(text);
  } catch {
    const where = first
      ? `${lineColumn(text, first.offset)} ${printParseErrorCode(first.error)}`
      : "invalid JSON";
    throw new SettingsFileError(
      `${name} is not strict JSON (${where}); Claude Code ignores such a file: fix it first`,
    );
  }
  if (!isPlainObject(value)) {
    throw new SettingsFileError(
      `${name} is not a settings file: its top level is not a JSON object`,
    );
  }
  return value;
}

/** How a file is laid out, so inserted text matches it. */
export interface JsonStyle {
  /** Everything on one line: edits stay on one line too. */
  compact: boolean;
  formatting: FormattingOptions;
}

/** Detects indentation (tabs or N spaces), line endings and compactness. */
export function detectStyle(text: string): JsonStyle {
  const eol = text.includes("\r\n") ? "\r\n" : "\n";
  const compact = text.trim() !== "" && !text.trim().includes("\n");
  let tabs = 0;
  let spaces = 0;
  let unit = Infinity;
  for (const line of text.split("\n")) {
    const indent = /^[ \t]+(?=\S)/.exec(line)?.[0];
    if (!indent) continue;
    if (indent.startsWith("\t")) tabs++;
    else {
      spaces++;
      unit = Math.min(unit, indent.length);
    }
  }
  const insertSpaces = spaces >= tabs;
  const tabSize = insertSpaces && unit !== Infinity
    ? unit
    : insertSpaces
    ? 2
    : 1;
  return { compact, formatting: { insertSpaces, tabSize, eol } };
}

/** One edit step on settings text. */
export interface JsonEditor {
  /** The current text. */
  readonly text: string;
  /** Sets (or adds) the value at `path`, creating missing parents. */
  set(path: JSONPath, value: unknown): void;
  /** Appends `value` to the array at `path`. */
  append(path: JSONPath, value: unknown): void;
  /** Removes an object property or an array element. */
  remove(path: JSONPath): void;
}

/**
 * An editor that applies each change to the text at once, keeping the
 * file's style: new text is formatted like its surroundings, compact files
 * stay compact.
 */
export function jsonEditor(original: string): JsonEditor {
  const style = detectStyle(original);
  let text = original.trim() === "" ? "{}" : original;
  const fresh = original.trim() === "";
  const options = () =>
    style.compact ? {} : { formattingOptions: style.formatting };
  return {
    get text() {
      // A new file gets the platform-neutral newline at the end.
      return fresh && !text.endsWith("\n") ? text + "\n" : text;
    },
    set(path, value) {
      const edits = modify(text, path, value, options());
      if (style.compact) {
        // jsonc-parser writes `"key": value`; a compact file has no space.
        for (const edit of edits) {
          edit.content = edit.content.replace(
            /^(,?"(?:[^"\\]|\\.)*"): /,
            "$1:",
          );
        }
      }
      text = applyEdits(text, edits);
    },
    append(path, value) {
      text = applyEdits(
        text,
        modify(text, [...path, -1], value, {
          ...options(),
          isArrayInsertion: true,
        }),
      );
    },
    remove(path) {
      const last = path[path.length - 1];
      const parent = findNodeAtLocation(
        parseTree(text) as Node,
        path.slice(0, -1),
      );
      if (parent?.children?.length === 1) {
        // The only member: leave `{}` / `[]`, not a brace on its own line.
        text = text.slice(0, parent.offset + 1) +
          text.slice(parent.offset + parent.length - 1);
      } else if (typeof last === "number") {
        text = removeArrayElement(text, path.slice(0, -1), last);
      } else {
        text = applyEdits(text, modify(text, path, undefined, options()));
      }
    },
  };
}

/**
 * Removes one array element (not the only one) and the separator before or
 * after it. (`jsonc-parser` mangles the last element of a one-line array.)
 */
function removeArrayElement(
  text: string,
  arrayPath: JSONPath,
  index: number,
): string {
  const array = findNodeAtLocation(parseTree(text) as Node, arrayPath);
  const children = array?.children ?? [];
  const target = children[index];
  if (!target) return text;
  const next = children[index + 1];
  const previous = children[index - 1];
  const [start, end] = next ? [target.offset, next.offset] : [
    (previous ?? target).offset + (previous ?? target).length,
    target.offset + target.length,
  ];
  return text.slice(0, start) + text.slice(end);
}
