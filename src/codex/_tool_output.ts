/**
 * What a Codex tool output says, and whether it carries nothing: a string or
 * content items, opening with a header block (`Wall time:`, ...) ending in
 * `Output:` for the shell, `apply_patch` and MCP (Codex 0.171.0).
 *
 * @module
 */

import { isPlainObject } from "../shared/plain_object.ts";
import { SNIPPET_CHARS } from "../transcript/entry.ts";

const MAX_OUTPUT_ITEMS = 64;

/** What one output holds: its text (at most a snippet), and whether it is empty. */
export interface ToolOutput {
  snippet: string;
  empty: boolean;
}

/** Reads a call's `output`: a string, or content items (any non-text item is content). */
export function readToolOutput(output: unknown): ToolOutput {
  if (typeof output === "string") {
    return { snippet: snippetOf(output), empty: isEmptyToolOutput(output) };
  }
  if (Array.isArray(output)) {
    let text = "";
    let other = false;
    for (const item of output.slice(0, MAX_OUTPUT_ITEMS)) {
      if (typeof item === "string") {
        text += item;
      } else if (isPlainObject(item) && typeof item.text === "string") {
        text += (text === "" ? "" : "\n") + item.text;
      } else if (item !== null && item !== undefined) {
        other = true; // an image, a resource: content
      }
      if (text.length > 64 * 1024) break; // enough to judge a header
    }
    return {
      snippet: snippetOf(text),
      empty: !other && output.length <= MAX_OUTPUT_ITEMS &&
        isEmptyToolOutput(text),
    };
  }
  if (output === null || output === undefined) {
    return { snippet: "", empty: true };
  }
  // An object or a number: no known shape, so content (never mass-flag).
  return { snippet: "", empty: false };
}

/** The header lines Codex 0.171.0 puts before `Output:`; any other line makes no header. */
const HEADER_LINE =
  /^(Chunk ID: |Wall time: |Process exited with code |Process running with session ID |Original token count: |Exit code: |Total output lines: )/;

const STILL_RUNNING = /^Process running with session ID /;

const MAX_HEADER_LINES = 8;

/** Blank, or a header with nothing after `Output:`; a still-running command's header is content (a session to poll). */
export function isEmptyToolOutput(text: string): boolean {
  if (text.trim() === "") return true;
  const header = headerOf(text);
  if (header === null) return false;
  if (header.lines.some((line) => STILL_RUNNING.test(line))) return false;
  return header.body.trim() === "";
}

const ABORTED = /^aborted by user\s*$/;

/** Codex's record of a call the user stopped: header lines, no `Output:` (so no tool output can pose as it), `aborted by user`. */
export function isUserAbortText(text: string): boolean {
  const lines = text.trim().split("\n", MAX_HEADER_LINES + 2).map((line) =>
    line.replace(/\r$/, "")
  );
  const last = lines.pop();
  return last !== undefined && ABORTED.test(last) &&
    lines.length <= MAX_HEADER_LINES &&
    lines.every((line) => HEADER_LINE.test(line));
}

/** The header lines and the body after `Output:`, or null without a header. */
function headerOf(text: string): { lines: string[]; body: string } | null {
  const lines: string[] = [];
  let at = 0;
  while (lines.length <= MAX_HEADER_LINES) {
    const end = text.indexOf("\n", at);
    const line = (end < 0 ? text.slice(at) : text.slice(at, end)).replace(
      /\r$/,
      "",
    );
    if (line === "Output:") {
      return lines.length > 0
        ? { lines, body: end < 0 ? "" : text.slice(end + 1) }
        : null;
    }
    if (!HEADER_LINE.test(line) || end < 0) return null;
    lines.push(line);
    at = end + 1;
  }
  return null;
}

function snippetOf(text: string): string {
  const opening = text.trimStart();
  return opening.length > SNIPPET_CHARS
    ? opening.slice(0, SNIPPET_CHARS)
    : opening;
}
