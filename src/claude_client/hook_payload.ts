/**
 * A hook payload's object and its fields, read by name: every door rejects
 * bad input in the same words.
 *
 * @module
 */

import { InputError } from "../shared/errors.ts";
import { isPlainObject } from "../shared/plain_object.ts";

const MAX_ECHO_CHARS = 80;

/** A payload's top-level object; {@link InputError} for anything else. */
export function parsePayloadObject(text: string): Record<string, unknown> {
  if (text.trim() === "") throw invalid("stdin is empty");
  let payload: unknown;
  try {
    payload = JSON.parse(text);
  } catch (error) {
    const detail = (error instanceof Error ? error.message : String(error))
      .replace(/\s+/g, " ");
    throw invalid(`not valid JSON (${clip(detail)})`);
  }
  if (!isPlainObject(payload)) {
    throw invalid(`expected a JSON object, got ${kindOf(payload)}`);
  }
  return payload;
}

/** A required non-empty string field (a path, an id) without a NUL byte. */
export function requiredPath(
  payload: Record<string, unknown>,
  name: string,
): string {
  const value = payload[name];
  if (value === undefined || value === null) {
    throw invalid(`"${name}" is missing`);
  }
  if (typeof value !== "string" || value.trim() === "") {
    throw invalid(`"${name}" must be a non-empty string, got ${kindOf(value)}`);
  }
  if (value.includes("\0")) throw invalid(`"${name}" contains a NUL byte`);
  return value;
}

/** An optional string field of a payload object; `null` when absent or empty. */
export function stringField(
  payload: Record<string, unknown>,
  name: string,
): string | null {
  const value = payload[name];
  return typeof value === "string" && value !== "" ? value : null;
}

function invalid(why: string): InputError {
  return new InputError(`Cannot parse hook input: ${why}`);
}

function kindOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "string") {
    return value === "" ? "an empty string" : "a string";
  }
  return `a ${typeof value}`;
}

function clip(text: string): string {
  const line = text.split("\n")[0] ?? "";
  return line.length > MAX_ECHO_CHARS
    ? `${line.slice(0, MAX_ECHO_CHARS)}…`
    : line;
}
