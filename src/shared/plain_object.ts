/**
 * Telling a JSON object apart from the other values `JSON.parse` returns:
 * every reader of JSON stall-watch did not write (transcripts, payloads,
 * settings, state, the event log) checks a value with it before reading
 * its fields.
 *
 * @module
 */

/** True for a non-null, non-array object. */
export function isPlainObject(
  value: unknown,
): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
