/**
 * Which hook events each stall-watch handler acts on, and which event a
 * payload is for.
 *
 * A hook registered for an event runs for that event whatever its command
 * is. Under PreToolUse the call about to run is unanswered by nature, so the
 * Stop hook's exit 2 would block every tool call (UserPromptSubmit: every
 * prompt); `watch` there would hold up each call. So both exit 0 on events
 * they are not for, and say once per session what is misregistered and how
 * to fix it (`decision/run_handler.ts`), in a `systemMessage` (shown to the user,
 * not the model).
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

/**
 * The payload's `hook_event_name`; when it has none (older releases send
 * none on Stop), the first event `handler` is for.
 */
export function eventOf(
  payload: Record<string, unknown>,
  handler: Handler,
): string {
  return stringField(payload, "hook_event_name") ??
    HANDLER_EVENTS[handler][0] as string;
}
