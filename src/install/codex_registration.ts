/**
 * The Stop hook registered for Codex CLI in its `hooks.json`, and finding it
 * again. Codex reads Claude Code's hook format, so the edits are
 * `hook_registration.ts`'s; only the handler differs: Codex runs it with a
 * shell in the session's folder and sets no `CLAUDE_PROJECT_DIR`, so it is
 * the program alone plus `codex-stop` (`/abs/stall-watch codex-stop`). Pure.
 *
 * @module
 */

import { shellQuote } from "../shared/shell_quote.ts";
import { join } from "../shared/paths.ts";
import { codexHome } from "../codex/rollout_files.ts";
import type { SettingsEdit } from "../client_settings/settings_update.ts";
import {
  jsonEditor,
  parseSettingsText,
  SettingsFileError,
} from "../client_settings/settings_json.ts";
import {
  DEFAULT_HOOK_TIMEOUT,
  describeCommand,
  type Invocation,
  ownCommandArgs,
  parseHandlerCommand,
  type Platform,
} from "./hook_command.ts";
import {
  addHandler,
  describeUpdate,
  hooksShapeProblems,
  type OwnHandler,
  removeHandler,
  updateHandler,
} from "./hook_registration.ts";
import { handlersOf } from "./registered_hooks.ts";

/** The subcommand Codex's Stop hook runs: the payload is Codex's. */
export const CODEX_STOP_COMMAND = "codex-stop";

/** Which `hooks.json` a Codex install writes. */
export type CodexScope = "project" | "user";

/**
 * The `hooks.json` of a scope: `<cwd>/.codex/hooks.json`, or `$CODEX_HOME/hooks.json`.
 *
 * @throws {InputError} For `user` when no variable names a home.
 */
export function codexHooksPath(
  scope: CodexScope,
  env: Readonly<Record<string, string>>,
  cwd: string,
): string {
  return scope === "project"
    ? join(cwd, ".codex", "hooks.json")
    : join(codexHome(env), "hooks.json");
}

/** The Codex Stop handler: program and `codex-stop`, shell-quoted (Windows: `/`), a timeout. */
export function buildCodexHandler(
  invocation: Invocation,
  options: { timeout: number; platform: Platform },
): Record<string, unknown> {
  const words = [invocation.program, ...invocation.args, CODEX_STOP_COMMAND];
  return {
    type: "command",
    command: words.map((word) =>
      options.platform === "windows" ? windowsQuote(word) : shellQuote(word)
    ).join(" "),
    timeout: options.timeout,
  };
}

/** Quotes a word for Windows command lines (no `'` quoting there). */
function windowsQuote(word: string): string {
  return /^[\w./:=-]+$/.test(word) ? word : `"${word.replaceAll('"', '\\"')}"`;
}

/** Our Codex Stop handlers: `Stop` commands running this stall-watch alone with `codex-stop`. */
export function findOwnCodexHandlers(
  settings: Readonly<Record<string, unknown>>,
  knownPaths: readonly string[],
): OwnHandler[] {
  const found: OwnHandler[] = [];
  for (const { g, group, index, handler } of handlersOf(settings, ["Stop"])) {
    if (handler.type !== "command") continue;
    const parsed = parseHandlerCommand(handler);
    const args = parsed && ownCommandArgs(parsed, knownPaths);
    if (args?.length !== 1 || args[0] !== CODEX_STOP_COMMAND) continue;
    found.push({
      event: "Stop",
      group: g,
      index,
      handler,
      groupKeys: Object.keys(group).filter((k) => k !== "hooks"),
      args,
    });
  }
  return found;
}

/** What a Codex install registers. */
export interface CodexInstallRequest {
  invocation: Invocation;
  platform: Platform;
  /** Paths that identify this stall-watch in existing handlers. */
  knownPaths: readonly string[];
  /** `--timeout`, or `null` to keep the registered one or default. */
  timeout: number | null;
}

/**
 * Plans a Codex install: adds or updates the Stop handler, removes copies; nothing else changes.
 *
 * @throws {SettingsFileError} When the file is not strict JSON, or its `hooks` is shaped wrong.
 */
export function planCodexInstall(
  text: string,
  name: string,
  request: CodexInstallRequest,
): SettingsEdit {
  const settings = parseSettingsText(text, name);
  const [problem] = hooksShapeProblems(settings);
  if (problem !== undefined) {
    throw new SettingsFileError(`${name} has ${problem}; fix it by hand first`);
  }
  const [first, ...duplicates] = findOwnCodexHandlers(
    settings,
    request.knownPaths,
  );
  const current = first?.handler.timeout;
  const desired = buildCodexHandler(request.invocation, {
    timeout: request.timeout ??
      (typeof current === "number" && Number.isFinite(current) && current > 0
        ? current
        : DEFAULT_HOOK_TIMEOUT),
    platform: request.platform,
  });
  const editor = jsonEditor(text);
  const changes: string[] = [];
  if (first === undefined) {
    addHandler(editor, "Stop", desired);
    changes.push(`Stop: added ${describeCommand(desired)}`);
  } else {
    const updated = updateHandler(editor, first, desired);
    if (updated.length > 0) {
      changes.push(`Stop: ${describeUpdate(first.handler, desired, updated)}`);
    }
    for (const duplicate of duplicates.reverse()) {
      removeHandler(editor, duplicate);
      changes.push(
        `Stop: removed duplicate ${describeCommand(duplicate.handler)}`,
      );
    }
  }
  return { text: changes.length > 0 ? editor.text : text, changes };
}

/**
 * Plans a Codex uninstall: our Stop handlers and what that empties; nothing else.
 *
 * @throws {SettingsFileError} When the file is not strict JSON.
 */
export function planCodexUninstall(
  text: string,
  name: string,
  knownPaths: readonly string[],
): SettingsEdit {
  const own = findOwnCodexHandlers(parseSettingsText(text, name), knownPaths);
  const editor = jsonEditor(text);
  const changes: string[] = [];
  for (const handler of [...own].reverse()) {
    removeHandler(editor, handler);
    changes.push(`Stop: removed ${describeCommand(handler.handler)}`);
  }
  changes.reverse();
  return { text: changes.length > 0 ? editor.text : text, changes };
}
