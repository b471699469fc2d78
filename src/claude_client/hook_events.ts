/**
 * Which hook events each stall-watch handler acts on. A hook runs for the
 * event it is registered under whatever it is: under PreToolUse the Stop
 * hook's exit 2 would block every tool call, so a handler allows events it
 * is not for and says so once per session (`decision/run_handler.ts`).
 *
 * @module
 */

import { stringField } from "./hook_payload.ts";

/**
 * The stall-watch handlers a client can run: Claude Code's Stop hook and
 * watcher, and the Stop hook for OpenAI's Codex CLI (`codex-stop`, whose
 * payloads have the same `hook_event_name`).
 */
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
