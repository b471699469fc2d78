/**
 * Reading and editing a client's JSON settings file: strict JSON only (Claude Code ignores a file
 * with a comment), and an edit rewrites only its region, in the file's own layout. Pure.
 *
 * @example
 * ```ts
 * const editor = jsonEditor(text);
 * editor.append(["hooks", "Stop"], { hooks: [handler] });
 * ```
 *
 * @module
 */

import {
  applyEdits,
  findNodeAtLocation,
  type JSONPath,
  type Node,
  type ParseError,
  parseTree,
  printParseErrorCode,
} from "../../vendor/jsonc-parser/main.js";
import { lineColumn, parseErrorWords } from "../config/config_file.ts";
import { InputError } from "../shared/errors.ts";
import { isPlainObject } from "../shared/plain_object.ts";

/** A settings file that is not strict JSON, or not shaped like settings. */
export class SettingsFileError extends InputError {
  constructor(message: string) {
    super(message);
    this.name = "SettingsFileError";
  }
}

/** Parses settings text as strict JSON (blank: `{}`), else a {@link SettingsFileError}. */
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
  const deep = tooDeepAt(text);
  if (deep !== null) {
    throw new SettingsFileError(
      `${name} is nested more than ${MAX_SETTINGS_DEPTH} levels deep (on line ${
        lineOf(text, deep)
      }); no settings file is: fix it first`,
    );
  }
  const errors: ParseError[] = [];
  const tree = parseTree(text, errors, {
    disallowComments: true,
    allowTrailingComma: false,
    allowEmptyContent: false,
  });
  const first = errors[0];
  const value = first === undefined ? strictJson(text) : NOT_JSON;
  if (value === NOT_JSON) {
    const where = first
      ? `${lineColumn(text, first.offset)}: ${
        parseErrorWords(printParseErrorCode(first.error))
      }`
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
  const duplicate = tree ? firstDuplicateKey(tree) : null;
  if (duplicate) {
    throw new SettingsFileError(
      `${name} has the key ${JSON.stringify(duplicate.value)} twice in one ` +
        `object (again on line ${lineOf(text, duplicate.offset)}); Claude ` +
        "Code reads only the last one, so stall-watch edits neither: " +
        "remove one first",
    );
  }
  return value;
}

function lineOf(text: string, offset: number): string {
  return lineColumn(text, offset).split(":")[0] as string;
}

/** Deeper than any settings file; the parser recurses once per level. */
const MAX_SETTINGS_DEPTH = 256;

/** Where `text` nests too deep, or `null`: a loop, so 100,000 levels overflow no stack. */
function tooDeepAt(text: string): number | null {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > MAX_SETTINGS_DEPTH) return i;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return null;
}

/** The first key that repeats one of its object's, found without recursion. */
function firstDuplicateKey(root: Node): Node | null {
  let first: Node | null = null;
  const pending: Node[] = [root];
  for (let node = pending.pop(); node; node = pending.pop()) {
    if (node.type === "object") {
      const seen = new Set<string>();
      for (const property of node.children ?? []) {
        const key = property.children?.[0];
        if (!key || typeof key.value !== "string") continue;
        if (seen.has(key.value) && (!first || key.offset < first.offset)) {
          first = key;
        }
        seen.add(key.value);
      }
    }
    for (const child of node.children ?? []) pending.push(child);
  }
  return first;
}

/** How a file is laid out (one line; a tab or N spaces), so inserted text matches it. */
interface JsonStyle {
  compact: boolean;
  indent: string;
  eol: "\n" | "\r\n";
}

function detectStyle(text: string): JsonStyle {
  const eol = text.includes("\r\n") ? "\r\n" : "\n";
  const body = text.trim();
  // `{}` shows no style; anything else on one line is a compact file.
  const compact = !/^(\{\s*\})?$/.test(body) && !body.includes("\n");
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
  const indent = tabs > spaces
    ? "\t"
    : " ".repeat(unit === Infinity ? 2 : unit);
  return { compact, indent, eol };
}

/** Edits on settings text, each applied at once. */
export interface JsonEditor {
  readonly text: string;
  /** Sets (or adds) the value at `path`, creating missing parents. */
  set(path: JSONPath, value: unknown): void;
  append(path: JSONPath, value: unknown): void;
  /** Removes an object property or an array element. */
  remove(path: JSONPath): void;
}

/**
 * An editor that changes only the bytes it must. Not `jsonc-parser`'s `modify`: it re-formats every
 * line an insertion touches, and mangles a one-line array's last removal.
 */
export function jsonEditor(original: string): JsonEditor {
  const style = detectStyle(original);
  const fresh = original.trim() === "";
  let text = fresh ? "{}" : original;
  const nodeAt = (path: JSONPath) =>
    findNodeAtLocation(parseTree(text) as Node, path);
  const splice = (start: number, end: number, content: string) => {
    text = applyEdits(text, [{ offset: start, length: end - start, content }]);
  };
  const render = (value: unknown, base: string, inline: boolean) =>
    inline
      ? JSON.stringify(value)
      : (JSON.stringify(value, null, style.indent) as string).replaceAll(
        "\n",
        style.eol + base,
      );
  const member = (
    key: string | null,
    value: unknown,
    base: string,
    inline: boolean,
  ) =>
    (key === null ? "" : JSON.stringify(key) + (style.compact ? ":" : ": ")) +
    render(value, base, inline);

  const insert = (container: Node, key: string | null, value: unknown) => {
    const children = container.children ?? [];
    const last = children[children.length - 1];
    const first = children[0];
    if (!last || !first) {
      const open = container.offset + 1;
      const close = container.offset + container.length - 1;
      if (style.compact) {
        return splice(open, close, member(key, value, "", true));
      }
      const outer = lineIndent(text, container.offset);
      const inner = outer + style.indent;
      return splice(
        open,
        close,
        style.eol + inner + member(key, value, inner, false) + style.eol +
          outer,
      );
    }
    const end = last.offset + last.length;
    const multiline = /\n/.test(text.slice(container.offset, first.offset));
    if (multiline && !style.compact) {
      const indent = lineIndent(text, last.offset);
      return splice(
        end,
        end,
        "," + style.eol + indent + member(key, value, indent, false),
      );
    }
    splice(
      end,
      end,
      (style.compact ? "," : ", ") + member(key, value, "", true),
    );
  };

  return {
    get text() {
      // A new file gets a final newline.
      return fresh ? text + style.eol : text;
    },
    set(path, value) {
      const existing = nodeAt(path);
      if (existing) {
        const base = lineIndent(text, existing.offset);
        return splice(
          existing.offset,
          existing.offset + existing.length,
          render(value, base, style.compact),
        );
      }
      // Wrap the value in the parents that are missing, then insert it.
      let parentPath = path.slice(0, -1);
      let key = path[path.length - 1];
      let wrapped = value;
      while (!nodeAt(parentPath) && parentPath.length > 0) {
        wrapped = typeof key === "number"
          ? [wrapped]
          : { [String(key)]: wrapped };
        key = parentPath[parentPath.length - 1];
        parentPath = parentPath.slice(0, -1);
      }
      const parent = nodeAt(parentPath);
      if (!parent || parent.type !== "object" || typeof key !== "string") {
        throw new TypeError(`Cannot set ${JSON.stringify(path)}`);
      }
      insert(parent, key, wrapped);
    },
    append(path, value) {
      const array = nodeAt(path);
      if (!array || array.type !== "array") {
        throw new TypeError(`Cannot append to ${JSON.stringify(path)}`);
      }
      insert(array, null, value);
    },
    remove(path) {
      const target = nodeAt(path);
      // An object's members are property nodes; the path names the value.
      const node = target?.parent?.type === "property" ? target.parent : target;
      const container = node?.parent;
      const children = container?.children ?? [];
      const index = node ? children.indexOf(node) : -1;
      if (!container || !node || index === -1) return;
      if (children.length === 1) {
        // The only member: leave `{}` / `[]`, not a brace on its own line.
        return splice(
          container.offset + 1,
          container.offset + container.length - 1,
          "",
        );
      }
      const next = children[index + 1];
      if (next) return splice(node.offset, next.offset, "");
      // The last of two or more: the one before it exists.
      const previous = children[index - 1] as Node;
      splice(previous.offset + previous.length, node.offset + node.length, "");
    },
  };
}

function lineIndent(text: string, offset: number): string {
  const start = text.lastIndexOf("\n", offset - 1) + 1;
  return /^[ \t]*/.exec(text.slice(start))?.[0] ?? "";
}

const NOT_JSON: unique symbol = Symbol("not JSON");

/** `JSON.parse(text)`, or {@link NOT_JSON}: the tolerant parser accepts more. */
function strictJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return NOT_JSON;
  }
}
