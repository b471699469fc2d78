/**
 * Plans the edits `install` and `uninstall` make to a settings file:
 * which of stall-watch's handlers to add, update or remove, as new text
 * plus one line per change.
 *
 * Install is idempotent: an existing stall-watch handler is updated in
 * place (never duplicated), extra copies are removed, and a second run
 * changes nothing. Uninstall removes only stall-watch's handlers, and the
 * matcher groups and event arrays it empties; every other key stays.
 *
 * Pure: text in, text out.
 *
 * @module
 */

import {
  buildHandler,
  DEFAULT_HOOK_TIMEOUT,
  describeCommand,
  HOOK_EVENTS,
  type HookEvent,
  type Invocation,
  isWatchEvent,
  parseHandlerCommand,
  type Platform,
  stallWatchArgs,
} from "./hook_command.ts";
import { isPlainObject } from "../shared/plain_object.ts";
import type { SettingsEdit } from "../client_settings/settings_update.ts";
import { HANDLER_EVENTS } from "../claude_client/hook_events.ts";
import { addStatusLine, removeStatusLine } from "./status_line_registration.ts";
import {
  type JsonEditor,
  jsonEditor,
  parseSettingsText,
  SettingsFileError,
} from "../client_settings/settings_json.ts";

/** One stall-watch handler found in a settings file. */
export interface OwnHandler {
  event: HookEvent;
  /** Index of the matcher group in `hooks.<event>`. */
  group: number;
  /** Index of the handler in the group's `hooks`. */
  index: number;
  handler: Record<string, unknown>;
  /** Whatever the group itself holds besides `hooks` (e.g. an `if`). */
  groupKeys: string[];
  /** What the handler passes to stall-watch (`[]` or `["watch"]`). */
  args: string[];
}

/**
 * Finds stall-watch's handlers: any in Stop and SubagentStop, and the
 * `watch` ones in PostToolUse and PostToolUseFailure. Oddly shaped entries are skipped.
 *
 * @param knownPaths Paths that are this stall-watch (see `stallWatchArgs`).
 */
export function findOwnHandlers(
  settings: Readonly<Record<string, unknown>>,
  knownPaths: readonly string[],
): OwnHandler[] {
  const found: OwnHandler[] = [];
  for (const at of handlersOf(settings, HOOK_EVENTS)) {
    const { group, handler } = at;
    if (handler.type !== "command") continue;
    const parsed = parseHandlerCommand(handler);
    const args = parsed && stallWatchArgs(parsed, knownPaths);
    if (!args) continue;
    const event = at.event as HookEvent;
    if (isWatchEvent(event) && args[0] !== "watch") continue;
    const groupKeys = Object.keys(group).filter((k) => k !== "hooks");
    found.push({
      event,
      group: at.g,
      index: at.index,
      handler,
      groupKeys,
      args,
    });
  }
  return found;
}

/** One handler object in a settings file, where it sits. */
interface HandlerAt {
  event: string;
  /** Index of its matcher group in `hooks.<event>`. */
  g: number;
  group: Record<string, unknown>;
  /** Index in the group's `hooks`. */
  index: number;
  handler: Record<string, unknown>;
}

/**
 * Every handler object under `events` (default: every event of the file),
 * in file order; oddly shaped groups and entries are skipped.
 */
function* handlersOf(
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

/** New text for a settings file, and what changed (empty: nothing). */
export type RegistrationPlan = SettingsEdit;

/** What `install` should register. */
export interface InstallRequest {
  invocation: Invocation;
  platform: Platform;
  /** Paths that identify this stall-watch in existing handlers. */
  knownPaths: readonly string[];
  /** Events to register; existing stall-watch handlers are updated anyway. */
  events: readonly HookEvent[];
  /** `--timeout` for Stop/SubagentStop, or `null` to keep or default. */
  timeout: number | null;
  /** The smallest acceptable watch timeout (above the watchdog's deadline). */
  watchTimeout: number;
  /** Also register `stall-watch statusline` as the status line. */
  statusLine?: boolean;
}

/**
 * Plans an install: adds a handler for each requested event that has none,
 * updates stall-watch handlers that differ from what this run would write
 * (command, form, timeout; an `if` is removed from Stop handlers), and
 * removes duplicates. A valid existing timeout is kept unless `timeout`
 * is given.
 *
 * @param name The file name used in messages.
 * @throws {SettingsFileError} When the file is not strict JSON, or `hooks`
 * or one of its event lists has the wrong type.
 */
export function planInstall(
  text: string,
  name: string,
  request: InstallRequest,
): RegistrationPlan {
  const settings = parseSettingsText(text, name);
  checkShape(settings, name);
  const own = findOwnHandlers(settings, request.knownPaths);
  const editor = jsonEditor(text);
  const changes: string[] = [];
  for (const event of HOOK_EVENTS) {
    const mine = own.filter((h) => h.event === event);
    if (mine.length === 0 && !request.events.includes(event)) continue;
    const desired = buildHandler(event, request.invocation, {
      timeout: timeoutFor(event, mine[0]?.handler, request),
      platform: request.platform,
    });
    const [first, ...duplicates] = mine;
    if (first === undefined) {
      addHandler(editor, event, desired);
      changes.push(`${event}: added ${describeCommand(desired)}`);
      continue;
    }
    const updated = updateHandler(editor, first, desired);
    if (updated.length > 0) {
      changes.push(
        `${event}: ${describeUpdate(first.handler, desired, updated)}`,
      );
    }
    for (const duplicate of duplicates.reverse()) {
      removeHandler(editor, duplicate);
      changes.push(
        `${event}: removed duplicate ${describeCommand(duplicate.handler)}`,
      );
    }
  }
  if (request.statusLine === true) {
    changes.push(
      ...addStatusLine(
        editor,
        settings,
        name,
        request.invocation,
        request.knownPaths,
      ),
    );
  }
  return { text: changes.length > 0 ? editor.text : text, changes };
}

/**
 * Plans an uninstall: removes every stall-watch handler in Stop,
 * SubagentStop, PostToolUse and PostToolUseFailure (`watch`), then the groups and event lists
 * that this leaves empty, and its status line. Nothing else changes.
 *
 * @throws {SettingsFileError} When the file is not strict JSON.
 */
export function planUninstall(
  text: string,
  name: string,
  knownPaths: readonly string[],
): RegistrationPlan {
  const settings = parseSettingsText(text, name);
  const own = findOwnHandlers(settings, knownPaths);
  const editor = jsonEditor(text);
  const changes: string[] = [];
  // Last first, so the indices of the ones still to remove stay valid.
  for (const handler of [...own].reverse()) {
    removeHandler(editor, handler);
    changes.push(
      `${handler.event}: removed ${describeCommand(handler.handler)}`,
    );
  }
  changes.reverse();
  changes.push(...removeStatusLine(editor, settings, knownPaths));
  return { text: changes.length > 0 ? editor.text : text, changes };
}

function checkShape(settings: Record<string, unknown>, name: string): void {
  const [first] = hooksShapeProblems(settings);
  if (first !== undefined) {
    throw new SettingsFileError(`${name} has ${first}; fix it by hand first`);
  }
}

/**
 * Where the `hooks` value is not shaped as Claude Code reads it: an object
 * of event name to a list of matcher groups, each `{ "hooks": [handler
 * objects] }`. One phrase per problem ("a "hooks.Stop[0].hooks" value that
 * is not an array"); empty when the shape is right or there is no `hooks`.
 */
export function hooksShapeProblems(
  settings: Readonly<Record<string, unknown>>,
): string[] {
  const hooks = settings.hooks;
  if (hooks === undefined) return [];
  if (!isPlainObject(hooks)) {
    return [`a "hooks" value that is not an object (${kindOf(hooks)})`];
  }
  const problems: string[] = [];
  const not = (path: string, wanted: string, value: unknown) =>
    problems.push(
      `a "${path}" value that is not ${wanted} (${kindOf(value)})`,
    );
  for (const [event, groups] of Object.entries(hooks)) {
    const at = `hooks.${event}`;
    if (!Array.isArray(groups)) {
      not(at, "an array", groups);
      continue;
    }
    groups.forEach((group: unknown, g) => {
      if (!isPlainObject(group)) {
        not(`${at}[${g}]`, "an object", group);
      } else if (!Array.isArray(group.hooks)) {
        not(`${at}[${g}].hooks`, "an array", group.hooks);
      } else {
        group.hooks.forEach((handler: unknown, h) => {
          if (!isPlainObject(handler)) {
            not(`${at}[${g}].hooks[${h}]`, "an object", handler);
          }
        });
      }
    });
  }
  return problems;
}

function kindOf(value: unknown): string {
  if (value === undefined) return "missing";
  if (value === null) return "null";
  return Array.isArray(value) ? "an array" : `a ${typeof value}`;
}

/**
 * The events each kind of stall-watch handler belongs in: the ones it acts
 * on at run time (one list, so `doctor` and the hook cannot disagree).
 */
const EVENTS_FOR = HANDLER_EVENTS;

/** A stall-watch handler under an event it is not for. */
export interface Misregistration {
  /** The event it is registered under, e.g. `PreToolUse`. */
  event: string;
  /** `hook` (no arguments) or `watch`. */
  kind: keyof typeof EVENTS_FOR;
  /** The events it belongs in. */
  belongs: readonly string[];
  handler: Record<string, unknown>;
}

/**
 * Finds stall-watch's hook (no arguments) under any event but Stop and
 * SubagentStop, and its `watch` under any but PostToolUse and
 * PostToolUseFailure. Registered under PreToolUse the hook would see the
 * current tool call unanswered and block every call (UserPromptSubmit:
 * every prompt).
 */
export function findMisregistered(
  settings: Readonly<Record<string, unknown>>,
  knownPaths: readonly string[],
): Misregistration[] {
  const found: Misregistration[] = [];
  for (const { event, handler } of handlersOf(settings)) {
    if (handler.type !== "command") continue;
    const parsed = parseHandlerCommand(handler);
    const args = parsed && stallWatchArgs(parsed, knownPaths);
    const kind = args?.length === 0
      ? "hook"
      : args?.[0] === "watch"
      ? "watch"
      : null;
    if (kind === null) continue;
    const belongs: readonly string[] = EVENTS_FOR[kind];
    if (!belongs.includes(event)) found.push({ event, kind, belongs, handler });
  }
  return found;
}

/**
 * The events where another hook can end a turn on purpose after a tool
 * call, by returning `{"continue": false}`: measured in the real client,
 * PreToolUse (the call still runs) and PostToolUse end the turn after the
 * call's result; PostToolUseFailure does not (the model answers), nor does
 * a PreToolUse deny (the call gets an error result the model answers).
 */
export const TURN_ENDING_EVENTS: readonly string[] = [
  "PreToolUse",
  "PostToolUse",
];

/** A handler of someone else's that can end a turn after a tool call. */
export interface TurnEndingHook {
  /** `PreToolUse` or `PostToolUse`. */
  event: string;
  /** Its command (or URL, or prompt type) in one line. */
  what: string;
}

/**
 * Every handler under {@link TURN_ENDING_EVENTS} that is not stall-watch's,
 * of any type: any hook there can return `continue: false`, and nothing in
 * the settings says which one will.
 */
export function findTurnEndingHooks(
  settings: Readonly<Record<string, unknown>>,
  knownPaths: readonly string[],
): TurnEndingHook[] {
  const found: TurnEndingHook[] = [];
  for (const { event, handler } of handlersOf(settings, TURN_ENDING_EVENTS)) {
    if (handler.type === "command") {
      const parsed = parseHandlerCommand(handler);
      if (parsed && stallWatchArgs(parsed, knownPaths)) continue;
    }
    found.push({ event, what: describeHook(handler) });
  }
  return found;
}

/** A handler in one line: its command, URL or type. */
function describeHook(handler: Readonly<Record<string, unknown>>): string {
  if (handler.type === "command") return describeCommand(handler);
  if (typeof handler.url === "string") return handler.url;
  return `a ${String(handler.type)} hook`;
}

function timeoutFor(
  event: HookEvent,
  existing: Record<string, unknown> | undefined,
  request: InstallRequest,
): number {
  const current = existing?.timeout;
  const valid = typeof current === "number" && Number.isFinite(current) &&
      current > 0
    ? current
    : null;
  if (isWatchEvent(event)) {
    // The watcher must outlive its own deadline, or Claude Code kills it first.
    return valid !== null && valid >= request.watchTimeout
      ? valid
      : request.watchTimeout;
  }
  return request.timeout ?? valid ?? DEFAULT_HOOK_TIMEOUT;
}

/**
 * Appends a group holding `handler` under `hooks.<event>` (creating what
 * is missing). Shared with the Codex registration (`codex_registration.ts`:
 * its `hooks.json` has this shape).
 */
export function addHandler(
  editor: JsonEditor,
  event: HookEvent,
  handler: Record<string, unknown>,
): void {
  const group = isWatchEvent(event)
    ? { matcher: "*", hooks: [handler] }
    : { hooks: [handler] };
  const settings = JSON.parse(editor.text) as Record<string, unknown>;
  const hooks = settings.hooks as Record<string, unknown> | undefined;
  if (hooks === undefined) editor.set(["hooks"], { [event]: [group] });
  else if (hooks[event] === undefined) editor.set(["hooks", event], [group]);
  else editor.append(["hooks", event], group);
}

/** Brings one handler in line with `desired`; returns the keys changed. */
export function updateHandler(
  editor: JsonEditor,
  own: OwnHandler,
  desired: Record<string, unknown>,
): string[] {
  const path = ["hooks", own.event, own.group, "hooks", own.index];
  const changed: string[] = [];
  for (const [key, value] of Object.entries(desired)) {
    if (JSON.stringify(own.handler[key]) !== JSON.stringify(value)) {
      editor.set([...path, key], value);
      changed.push(key);
    }
  }
  const stale = ["args", "async", "asyncRewake"].filter((key) =>
    !(key in desired) && key in own.handler
  );
  // An `if` on a Stop handler means it never runs.
  if (!isWatchEvent(own.event) && "if" in own.handler) stale.push("if");
  for (const key of stale) {
    editor.remove([...path, key]);
    changed.push(key);
  }
  return changed;
}

/**
 * What an update changed, in words: `updated command of <old> -> <new>`
 * when the command moved (other keys listed after it), else
 * `updated timeout 30 -> 45 of <command>`.
 */
export function describeUpdate(
  old: Readonly<Record<string, unknown>>,
  desired: Readonly<Record<string, unknown>>,
  keys: readonly string[],
): string {
  const value = (v: unknown) => v === undefined ? "(none)" : JSON.stringify(v);
  const others = keys.filter((k) => k !== "command" && k !== "args").map((k) =>
    k in desired
      ? `${k} ${value(old[k])} -> ${value(desired[k])}`
      : `${k} removed`
  );
  const before = describeCommand(old);
  const after = describeCommand(desired);
  if (before !== after) {
    return [`updated command of ${before} -> ${after}`, ...others].join(", ");
  }
  return `updated ${others.join(", ")} of ${after}`;
}

/**
 * Removes one handler, and the group and event list it leaves empty.
 */
export function removeHandler(editor: JsonEditor, own: OwnHandler): void {
  const settings = JSON.parse(editor.text) as {
    hooks: Record<string, { hooks: unknown[] }[]>;
  };
  const groups = settings.hooks[own.event] ?? [];
  const group = groups[own.group];
  if (group && group.hooks.length > 1) {
    editor.remove(["hooks", own.event, own.group, "hooks", own.index]);
  } else if (groups.length > 1) {
    editor.remove(["hooks", own.event, own.group]);
  } else {
    editor.remove(["hooks", own.event]);
  }
}
