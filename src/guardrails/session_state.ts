/**
 * What one session remembers between hook runs, and its file's format: a corrupt or wrongly shaped
 * file reads as an empty state plus a note, never an error. Pure.
 *
 * @example
 * ```ts
 * const { state } = parseState('{"retries": {"toolu_1": 1}}');
 * retriesOf(state, "toolu_1"); // 1
 * ```
 *
 * @module
 */

import { isPlainObject } from "../shared/plain_object.ts";

/** What one session remembers between hook runs. */
export interface SessionState {
  /** Recoveries dispatched per tool_use_id. */
  retries: Record<string, number>;
  /** Seconds since the epoch of the last recovery; 0 = never. */
  lastRecoveryAt: number;
  /** Fingerprint of the config problems already shown to the user. */
  configNotice: string | null;
  /** Misregistrations already shown (`hook:PreToolUse`); absent when none was. */
  eventNotices?: string[];
}

const MAX_EVENT_NOTICES = 32;

/** Recoveries dispatched for `toolUseId`, an own property only (so `__proto__` counts too). */
export function retriesOf(state: SessionState, toolUseId: string): number {
  if (!Object.hasOwn(state.retries, toolUseId)) return 0;
  const count = state.retries[toolUseId];
  return typeof count === "number" ? count : 0;
}

/** A fresh state. */
export function emptyState(): SessionState {
  return { retries: {}, lastRecoveryAt: 0, configNotice: null };
}

/** A parsed state file, or an empty state plus a note on why. */
export interface LoadedState {
  state: SessionState;
  /** Why the file was not used, e.g. corrupt JSON; `null` when fine or absent. */
  note: string | null;
  /** Set when the file held no state at all: why ("it is not valid JSON"). */
  corrupt?: string;
}

/** Parses a state file's text; unusable counters are dropped. */
export function parseState(text: string): LoadedState {
  const data = jsonOf(text);
  if (data === undefined) return corrupt("not valid JSON");
  if (!isPlainObject(data)) return corrupt("not a JSON object");
  const state = emptyState();
  let dropped = 0;
  if (isPlainObject(data.retries)) {
    const kept: [string, number][] = [];
    for (const [id, count] of Object.entries(data.retries)) {
      if (typeof count === "number" && Number.isInteger(count) && count >= 0) {
        kept.push([id, count]);
      } else dropped++;
    }
    // fromEntries defines own properties: `__proto__` stays a plain key.
    state.retries = Object.fromEntries(kept);
  } else if (data.retries !== undefined) dropped++;
  const last = data.last_recovery_at;
  if (typeof last === "number" && Number.isFinite(last) && last >= 0) {
    state.lastRecoveryAt = last;
  } else if (last !== undefined) dropped++;
  if (typeof data.config_notice === "string") {
    state.configNotice = data.config_notice;
  }
  if (Array.isArray(data.event_notices)) {
    const notices = data.event_notices.filter((n): n is string =>
      typeof n === "string"
    ).slice(0, MAX_EVENT_NOTICES);
    if (notices.length > 0) state.eventNotices = notices;
  }
  const note = dropped > 0
    ? `state file had ${dropped} unusable field(s)`
    : null;
  return { state, note };
}

function corrupt(what: string): LoadedState {
  return {
    state: emptyState(),
    note: `state file is ${what}`,
    corrupt: `it is ${what}`,
  };
}

/** `JSON.parse(text)`, or `undefined` (which no JSON text is) when it throws. */
function jsonOf(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The state file's text (stable key order). */
export function serializeState(state: SessionState): string {
  return JSON.stringify(
    {
      config_notice: state.configNotice,
      ...(state.eventNotices?.length
        ? { event_notices: state.eventNotices.slice(0, MAX_EVENT_NOTICES) }
        : {}),
      last_recovery_at: state.lastRecoveryAt,
      retries: state.retries,
    },
    null,
    2,
  ) + "\n";
}

const STATE_KEYS = [
  "config_notice",
  "event_notices",
  "last_recovery_at",
  "retries",
];

/** Whether a file's text is a state file {@link serializeState} wrote. */
export function isStateText(text: string): boolean {
  const data = jsonOf(text);
  if (!isPlainObject(data)) return false;
  const keys = Object.keys(data);
  return keys.length > 0 && keys.every((key) => STATE_KEYS.includes(key));
}

/**
 * Whether a file under a state file's name may be replaced: stall-watch's state, a torn copy of it,
 * or no JSON at all; other JSON (`settings.local.json` for a session `settings.local`) never is.
 */
export function isReplaceableState(text: string): boolean {
  if (isStateText(text)) return true;
  if (jsonOf(text) !== undefined) return false;
  if (!/^\s*[{[/]/.test(text)) return true;
  const first = /^\s*\{\s*"([^"\\]*)"/.exec(text)?.[1];
  return first !== undefined && STATE_KEYS.includes(first);
}
