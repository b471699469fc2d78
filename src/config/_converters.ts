/**
 * Turning a raw environment or config value into a setting, or saying why not in a problem line.
 *
 * @module
 */

import { isPlainObject } from "../shared/plain_object.ts";

/** A setting, or why the raw value cannot be one. */
export type Conversion<T> =
  | { ok: true; value: T }
  | { ok: false; message: string };

/** Turns a raw env or file value into a setting, or says why it cannot. */
export type Converter<T> = (raw: unknown) => Conversion<T>;

function ok<T>(value: T): Conversion<T> {
  return { ok: true, value };
}

function fail(message: string): Conversion<never> {
  return { ok: false, message };
}

/** An integer from `min` to `max` (a string of one from the environment). */
export function integerIn(min: number, max: number): Converter<number> {
  return rangeIn(min, max, "an integer", Number.isInteger);
}

/** A number from `min` to `max` (a string of one from the environment). */
export function numberIn(min: number, max: number): Converter<number> {
  return rangeIn(min, max, "a number", Number.isFinite);
}

function rangeIn(
  min: number,
  max: number,
  what: string,
  accepts: (value: number) => boolean,
): Converter<number> {
  return (raw) => {
    // A blank string is no number (`Number(" ")` would make it 0).
    const value = typeof raw === "string"
      ? (raw.trim() === "" ? NaN : Number(raw.trim()))
      : raw;
    return typeof value === "number" && accepts(value) &&
        value >= min && value <= max
      ? ok(value)
      : fail(`must be ${what} from ${min} to ${max}, got ${show(raw)}`);
  };
}

/** `true` or `false`, as JSON gives them. */
export function boolean(raw: unknown): Conversion<boolean> {
  return typeof raw === "boolean"
    ? ok(raw)
    : fail(`must be true or false, got ${show(raw)}`);
}

/** One of `choices`, spelled exactly. */
export function oneOf<T extends string>(choices: readonly T[]): Converter<T> {
  return (raw) =>
    typeof raw === "string" && (choices as readonly string[]).includes(raw)
      ? ok(raw as T)
      : fail(
        `must be one of ${choices.map((c) => `"${c}"`).join(", ")}, got ${
          show(raw)
        }`,
      );
}

/** An environment variable's name. */
export function envName(raw: unknown): Conversion<string> {
  return typeof raw === "string" && /^[A-Za-z_][A-Za-z0-9_]*$/.test(raw)
    ? ok(raw)
    : fail(`must be an environment variable name, got ${show(raw)}`);
}

/** A path: not blank, no NUL. */
export function path(raw: unknown): Conversion<string> {
  return typeof raw === "string" && raw.trim() !== "" && !raw.includes("\0")
    ? ok(raw)
    : fail(`must be a non-empty path, got ${show(raw)}`);
}

/** A value as a problem shows it: JSON, cut at 40 characters. */
export function show(raw: unknown): string {
  if (isPlainObject(raw)) return "an object";
  const text = JSON.stringify(raw) ?? String(raw);
  return text.length > 40 ? `${text.slice(0, 40)}…` : text;
}
