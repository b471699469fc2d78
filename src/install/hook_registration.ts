/**
 * Plans the edits `install` (idempotent) and `uninstall` (only stall-watch's handlers and what they
 * leave empty) make to a settings file, as new text plus a line per change. Pure.
 *
 * @example
 * ```ts
 * const { text, changes } = planUninstall(before, ".claude/settings.json", knownPaths);
 * ```
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
  ownHandlerArgs,
  type Platform,
} from "./hook_command.ts";
import { isPlainObject } from "../shared/plain_object.ts";
import type { SettingsEdit } from "../client_settings/settings_update.ts";
import { type HandlerAt, handlersOf } from "./registered_hooks.ts";
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

/** stall-watch's handlers: any in Stop and SubagentStop, `watch` in PostToolUse(Failure). */
export function findOwnHandlers(
  settings: Readonly<Record<string, unknown>>,
  knownPaths: readonly string[],
): OwnHandler[] {
  const found: OwnHandler[] = [];
  for (const at of handlersOf(settings, HOOK_EVENTS)) {
    const args = ownHandlerArgs(at.handler, knownPaths);
    if (!args || (isWatchEvent(at.event) && args[0] !== "watch")) continue;
    found.push(ownHandlerAt(at, args));
  }
  return found;
}

/** The {@link OwnHandler} for a handler found at `at` that passes `args`. */
export function ownHandlerAt(at: HandlerAt, args: string[]): OwnHandler {
  return {
    event: at.event as HookEvent,
    group: at.g,
    index: at.index,
    handler: at.handler,
    groupKeys: Object.keys(at.group).filter((k) => k !== "hooks"),
    args,
  };
}

/** What `install` should register (own handlers of other events are updated anyway). */
export interface InstallRequest {
  invocation: Invocation;
  platform: Platform;
  /** Paths that identify this stall-watch in existing handlers. */
  knownPaths: readonly string[];
  events: readonly HookEvent[];
  /** `--timeout` for Stop/SubagentStop, or `null` to keep or default. */
  timeout: number | null;
  /** The smallest watch timeout (above the watchdog's deadline). */
  watchTimeout: number;
  statusLine?: boolean;
}

/** Plans an install: a handler per requested event, own ones brought in line, copies removed. */
export function planInstall(
  text: string,
  name: string,
  request: InstallRequest,
): SettingsEdit {
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
    changes.push(...reconcileHandlers(editor, event, mine, desired));
  }
  if (request.statusLine === true) {
    const { invocation, knownPaths } = request;
    changes.push(
      ...addStatusLine(editor, settings, name, invocation, knownPaths),
    );
  }
  return { text: changes.length > 0 ? editor.text : text, changes };
}

/** Plans an uninstall: every own handler, what it leaves empty, and its status line. */
export function planUninstall(
  text: string,
  name: string,
  knownPaths: readonly string[],
): SettingsEdit {
  const settings = parseSettingsText(text, name);
  const editor = jsonEditor(text);
  const changes = removeHandlers(editor, findOwnHandlers(settings, knownPaths));
  changes.push(...removeStatusLine(editor, settings, knownPaths));
  return { text: changes.length > 0 ? editor.text : text, changes };
}

/** @throws {SettingsFileError} Naming the first of {@link hooksShapeProblems}. */
export function checkShape(
  settings: Record<string, unknown>,
  name: string,
): void {
  const [first] = hooksShapeProblems(settings);
  if (first !== undefined) {
    throw new SettingsFileError(`${name} has ${first}; fix it by hand first`);
  }
}

/** Where `hooks` is not shaped `{"<Event>": [{"hooks": [handler]}]}`, a phrase each. */
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

/** A handler's `timeout` when usable (a positive number), else null. */
export function usableTimeout(
  handler: Readonly<Record<string, unknown>> | undefined,
): number | null {
  const timeout = handler?.timeout;
  return typeof timeout === "number" && Number.isFinite(timeout) && timeout > 0
    ? timeout
    : null;
}

function timeoutFor(
  event: HookEvent,
  existing: Record<string, unknown> | undefined,
  request: InstallRequest,
): number {
  const valid = usableTimeout(existing);
  if (isWatchEvent(event)) {
    // The watcher must outlive its deadline, or Claude Code kills it first.
    return valid !== null && valid >= request.watchTimeout
      ? valid
      : request.watchTimeout;
  }
  return request.timeout ?? valid ?? DEFAULT_HOOK_TIMEOUT;
}

/** Adds `desired` under `event`, or brings the first of `mine` in line and removes the others. */
export function reconcileHandlers(
  editor: JsonEditor,
  event: HookEvent,
  mine: readonly OwnHandler[],
  desired: Record<string, unknown>,
): string[] {
  const [first, ...duplicates] = mine;
  if (first === undefined) {
    addHandler(editor, event, desired);
    return [`${event}: added ${describeCommand(desired)}`];
  }
  const changes: string[] = [];
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
  return changes;
}

/** Removes `own`, last first so the indices still to remove stay valid; the changes in file order. */
export function removeHandlers(
  editor: JsonEditor,
  own: readonly OwnHandler[],
): string[] {
  const changes: string[] = [];
  for (const handler of [...own].reverse()) {
    removeHandler(editor, handler);
    changes.push(
      `${handler.event}: removed ${describeCommand(handler.handler)}`,
    );
  }
  return changes.reverse();
}

/** Appends a group holding `handler` under `hooks.<event>`. */
function addHandler(
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
function updateHandler(
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

/** An update in words: `updated command of <old> -> <new>`, or `updated timeout 30 -> 45 of <command>`. */
function describeUpdate(
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

/** Removes one handler, and the group and event list it leaves empty. */
function removeHandler(editor: JsonEditor, own: OwnHandler): void {
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
