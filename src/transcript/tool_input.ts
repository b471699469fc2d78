/**
 * A tool call's input summed up: the one field that tells which call stalled
 * (the file, the command, the URL), its first characters only.
 *
 * @module
 */

import { isPlainObject } from "../shared/plain_object.ts";

/** The input field a recovery prompt names (`""`: no input), its value cut to {@link TOOL_INPUT_CHARS}. */
export interface ToolInputSummary {
  field: string;
  value: string;
}

/** The most characters of an input value kept. */
export const TOOL_INPUT_CHARS = 120;

/** Fields that identify a call, most telling first (Read, NotebookEdit, Bash, WebFetch, ...). */
const TELLING_FIELDS: readonly string[] =
  "file_path notebook_path command url query pattern description path prompt"
    .split(" ");

/** A key safe to show as it is (MCP tools name their own). */
const FIELD_NAME = /^[A-Za-z_][A-Za-z0-9_-]{0,39}$/;

/** Keys of an unknown input looked at for a fallback field. */
const FALLBACK_KEYS = 16;

/**
 * A `tool_use` block's `input` summed up: its telling field, else an unknown
 * tool's first scalar field; `{field: "", value: ""}` for an empty input,
 * `null` for none or no object.
 */
export function summarizeToolInput(input: unknown): ToolInputSummary | null {
  if (!isPlainObject(input)) return null;
  for (const field of TELLING_FIELDS) {
    const value = input[field];
    if (typeof value === "string" && value.trim() !== "") {
      return { field, value: cut(value) };
    }
  }
  let seen = 0;
  for (const field in input) {
    if (++seen > FALLBACK_KEYS) break;
    if (!FIELD_NAME.test(field)) continue;
    const value = input[field];
    if (typeof value === "string" && value.trim() !== "") {
      return { field, value: cut(value) };
    }
    if (typeof value === "number" || typeof value === "boolean") {
      return { field, value: String(value) };
    }
  }
  return seen === 0 ? { field: "", value: "" } : null;
}

/** An overlong line's input summed up from its raw `{...`: a first field that tells. */
export function summarizeRawToolInput(
  rawInput: string,
): ToolInputSummary | null {
  const match = /^\{\s*"([A-Za-z_]+)"\s*:\s*"((?:[^"\\]|\\.){0,400})/.exec(
    rawInput,
  );
  if (!match || !TELLING_FIELDS.includes(match[1] as string)) return null;
  const value = decodeJsonFragment(match[2] as string);
  return value.trim() === ""
    ? null
    : { field: match[1] as string, value: cut(value) };
}

/** Decodes the escapes of a (possibly cut) JSON string body. */
export function decodeJsonFragment(fragment: string): string {
  // A cut may split an escape: drop a trailing partial one.
  const whole = fragment.replace(/\\(u[0-9a-fA-F]{0,3})?$/, "");
  try {
    return JSON.parse(`"${whole}"`) as string;
  } catch {
    return whole;
  }
}

function cut(value: string): string {
  const line = value.trim();
  if (line.length <= TOOL_INPUT_CHARS) return line;
  // Never split a surrogate pair.
  let end = TOOL_INPUT_CHARS - 1;
  const code = line.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end--;
  return line.slice(0, end) + "…";
}
