/**
 * What the user is told once per session, claimed in its state (without
 * state, shown): config problems, a handler run under the wrong event.
 *
 * @module
 */

import { formatProblems } from "../config/load_settings.ts";
import type { SettingProblem } from "../config/settings.ts";
import type { StateStore } from "../guardrails/state.ts";
import { type Handler, HANDLER_EVENTS } from "../claude_client/hook_events.ts";

/** Opens the session state store when first asked, once per run. */
export type StoreOpener = () => Promise<StateStore>;

/** A stable fingerprint of a problem list, to tell the user about it once. */
function problemsFingerprint(
  problems: readonly SettingProblem[],
): string {
  let hash = 0x811c9dc5; // FNV-1a, 32 bit: enough to notice a change
  for (
    const char of problems.map((p) => `${p.source}|${p.message}`).join("\n")
  ) {
    hash = Math.imul(hash ^ (char.codePointAt(0) ?? 0), 0x01000193) >>> 0;
  }
  return hash.toString(16).padStart(8, "0");
}

/** The config-problem notice to show now, or `null` (none, or this session was told). */
export async function claimConfigNotice(
  openStore: StoreOpener,
  sessionId: string,
  problems: readonly SettingProblem[],
): Promise<string | null> {
  if (problems.length === 0) return null;
  const fingerprint = problemsFingerprint(problems);
  const text = "stall-watch config problem (defaults used instead): " +
    formatProblems(problems).join("; ");
  try {
    const fresh = await (await openStore()).update(
      sessionId,
      ({ state }) =>
        state.configNotice === fingerprint
          ? { state: null, result: false }
          : { state: { ...state, configNotice: fingerprint }, result: true },
    );
    return fresh ? text : null;
  } catch {
    return text;
  }
}

/** Event names are identifiers; anything else is shown as a placeholder. */
const EVENT_NAME = /^[A-Za-z][A-Za-z0-9_]{0,63}$/;

/** The notice for a handler run under an `event` it is not for, or `null` once told. */
export async function claimMisregistrationNotice(
  openStore: StoreOpener,
  sessionId: string,
  handler: Handler,
  event: string,
): Promise<string | null> {
  const known = EVENT_NAME.test(event);
  const key = `${handler}:${known ? event : "?"}`;
  let fresh = true;
  try {
    fresh = await (await openStore()).update(sessionId, ({ state }) => {
      const shown = state.eventNotices ?? [];
      return shown.includes(key)
        ? { state: null, result: false }
        : { state: { ...state, eventNotices: [...shown, key] }, result: true };
    });
  } catch { /* told anyway */ }
  if (!fresh) return null;
  const name = known ? event : "an unknown event";
  const [what, install, settings] = MISREGISTERED[handler];
  return `stall-watch: ${what} ran for ${name}, but it is for ${
    HANDLER_EVENTS[handler].join(" and ")
  } only, so it did nothing. Remove it from "hooks.${name}" in ${settings} ` +
    `("stall-watch doctor" names the file) and run ` +
    `"${install}" to register it where it belongs.`;
}

/** Each handler's name, its install command and the settings it lives in. */
const MISREGISTERED: Readonly<
  Record<Handler, readonly [string, string, string]>
> = {
  hook: [
    "The stall-watch hook",
    "stall-watch install",
    "your Claude Code settings",
  ],
  watch: [
    "stall-watch watch",
    "stall-watch install --watch",
    "your Claude Code settings",
  ],
  codex: [
    "stall-watch codex-stop",
    "stall-watch install --codex",
    "Codex's hooks.json",
  ],
};
