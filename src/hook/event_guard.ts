/**
 * Which hook events each stall-watch handler acts on, and what it tells the
 * user when Claude Code runs it for another one.
 *
 * A hook registered for an event runs for that event whatever its command
 * is. Under PreToolUse the call about to run is unanswered by nature, so the
 * Stop hook's exit 2 would block every tool call (UserPromptSubmit: every
 * prompt); `watch` there would hold up each call. So both exit 0 on events
 * they are not for, and say once per session what is misregistered and how
 * to fix it, in a `systemMessage` (shown to the user, not the model).
 *
 * @module
 */

import type { StateStore } from "../guardrails/state.ts";

/** The stall-watch handlers Claude Code can run. */
export type Handler = "hook" | "watch";

/** The events each handler is for. */
export const HANDLER_EVENTS: Readonly<Record<Handler, readonly string[]>> = {
  hook: ["Stop", "SubagentStop"],
  watch: ["PostToolUse", "PostToolUseFailure"],
};

/** Whether `handler` acts on `event`. */
export function handles(handler: Handler, event: string): boolean {
  return HANDLER_EVENTS[handler].includes(event);
}

/** Event names are identifiers; anything else is shown as a placeholder. */
const EVENT_NAME = /^[A-Za-z][A-Za-z0-9_]{0,63}$/;

/**
 * The notice for a handler run under the wrong event: what happened, and
 * how to fix it.
 *
 * @param handler Which handler ran.
 * @param event The payload's `hook_event_name`.
 */
export function misregistrationNotice(handler: Handler, event: string): string {
  const name = EVENT_NAME.test(event) ? event : "an unknown event";
  const what = handler === "hook"
    ? "The stall-watch hook"
    : "stall-watch watch";
  const install = handler === "hook"
    ? "stall-watch install"
    : "stall-watch install --watch";
  return `stall-watch: ${what} ran for ${name}, but it is for ${
    HANDLER_EVENTS[handler].join(" and ")
  } only, so it did nothing. Remove it from "hooks.${name}" in your Claude ` +
    `Code settings ("stall-watch doctor" names the file) and run ` +
    `"${install}" to register it where it belongs.`;
}

/**
 * Claims the misregistration notice for this session: true the first time
 * (the caller shows it), false once it was shown. When state cannot be
 * used, true: better shown twice than never.
 */
export async function claimMisregistrationNotice(
  store: () => Promise<StateStore>,
  sessionId: string,
  handler: Handler,
  event: string,
): Promise<boolean> {
  const key = `${handler}:${EVENT_NAME.test(event) ? event : "?"}`;
  try {
    return await (await store()).update(sessionId, ({ state }) => {
      const shown = state.eventNotices ?? [];
      return shown.includes(key)
        ? { state: null, result: false }
        : { state: { ...state, eventNotices: [...shown, key] }, result: true };
    });
  } catch {
    return true;
  }
}
