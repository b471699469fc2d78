/**
 * Which hook events each stall-watch handler acts on: a handler allows any
 * other (under PreToolUse the Stop hook's exit 2 would block every call).
 *
 * @module
 */

import { stringField } from "./hook_payload.ts";

/** The handlers: Claude Code's Stop hook and watcher, Codex CLI's Stop hook (`codex-stop`). */
export type Handler = "hook" | "watch" | "codex";

/** The events each handler is for, the one a payload without a name means first. */
export const HANDLER_EVENTS: Readonly<Record<Handler, readonly string[]>> = {
  hook: ["Stop", "SubagentStop"],
  watch: ["PostToolUse", "PostToolUseFailure"],
  codex: ["Stop"],
};

/** Whether `handler` acts on `event`. */
export function handles(handler: Handler, event: string): boolean {
  return HANDLER_EVENTS[handler].includes(event);
}

/** The payload's `hook_event_name`, else (older releases, on Stop) `handler`'s first. */
export function eventOf(
  payload: Record<string, unknown>,
  handler: Handler,
): string {
  return stringField(payload, "hook_event_name") ??
    HANDLER_EVENTS[handler][0] as string;
}
