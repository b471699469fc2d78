/**
 * Every handler a settings file registers, and what `doctor` finds among them: stall-watch's under
 * events they are not for, and others' hooks that can end a turn on purpose. Pure.
 *
 * @module
 */

import { describeCommand, ownHandlerArgs } from "./hook_command.ts";
import { isPlainObject } from "../shared/plain_object.ts";
import { HANDLER_EVENTS } from "../claude_client/hook_events.ts";

/** One handler object in a settings file, where it sits. */
export interface HandlerAt {
  event: string;
  /** Index of its matcher group in `hooks.<event>`. */
  g: number;
  group: Record<string, unknown>;
  index: number;
  handler: Record<string, unknown>;
}

/** Every handler object under `events` (default: all), oddly shaped entries skipped. */
export function* handlersOf(
  settings: Readonly<Record<string, unknown>>,
  events?: readonly string[],
): Generator<HandlerAt> {
  const hooks = settings.hooks;
  if (!isPlainObject(hooks)) return;
  for (const event of events ?? Object.keys(hooks)) {
    const groups = hooks[event];
    if (!Array.isArray(groups)) continue;
    for (const [g, group] of groups.entries()) {
      if (!isPlainObject(group) || !Array.isArray(group.hooks)) continue;
      for (const [index, handler] of group.hooks.entries()) {
        if (isPlainObject(handler)) yield { event, g, group, index, handler };
      }
    }
  }
}

/** A stall-watch handler under an event it is not for. */
export interface Misregistration {
  /** The event it is registered under, e.g. `PreToolUse`. */
  event: string;
  kind: keyof typeof HANDLER_EVENTS;
  /** The events it belongs in (what it acts on at run time). */
  belongs: readonly string[];
  handler: Record<string, unknown>;
}

/** stall-watch's handlers under events not theirs (under PreToolUse the hook blocks every call). */
export function findMisregistered(
  settings: Readonly<Record<string, unknown>>,
  knownPaths: readonly string[],
): Misregistration[] {
  const found: Misregistration[] = [];
  for (const { event, handler } of handlersOf(settings)) {
    const args = ownHandlerArgs(handler, knownPaths);
    const kind = args?.length === 0
      ? "hook"
      : args?.[0] === "watch"
      ? "watch"
      : null;
    if (kind === null) continue;
    const belongs: readonly string[] = HANDLER_EVENTS[kind];
    if (!belongs.includes(event)) found.push({ event, kind, belongs, handler });
  }
  return found;
}

/**
 * Where another hook's `{"continue": false}` ends a turn after a call, as measured: PreToolUse and
 * PostToolUse, not PostToolUseFailure nor a PreToolUse deny (the model answers both).
 */
const TURN_ENDING_EVENTS: readonly string[] = ["PreToolUse", "PostToolUse"];

/** A handler of someone else's that can end a turn after a tool call. */
interface TurnEndingHook {
  event: string;
  /** Its command, URL or type, in one line. */
  what: string;
}

/** Every handler but stall-watch's, of any type, under {@link TURN_ENDING_EVENTS}. */
export function findTurnEndingHooks(
  settings: Readonly<Record<string, unknown>>,
  knownPaths: readonly string[],
): TurnEndingHook[] {
  const found: TurnEndingHook[] = [];
  for (const { event, handler } of handlersOf(settings, TURN_ENDING_EVENTS)) {
    if (ownHandlerArgs(handler, knownPaths)) continue;
    found.push({ event, what: describeHook(handler) });
  }
  return found;
}

function describeHook(handler: Readonly<Record<string, unknown>>): string {
  if (handler.type === "command") return describeCommand(handler);
  if (typeof handler.url === "string") return handler.url;
  return `a ${String(handler.type)} hook`;
}
