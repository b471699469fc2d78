/**
 * A JSON object told apart from the other values `JSON.parse` returns.
 *
 * @module
 */

/** True for a non-null, non-array object. */
export function isPlainObject(
  value: unknown,
): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
