/**
 * The Stop hook registered in Codex's `hooks.json` (Claude Code's format, so
 * `hook_registration.ts`'s edits), and finding it again: Codex runs it in the session's folder with
 * no `CLAUDE_PROJECT_DIR`, so it is the program alone plus `codex-stop`. Pure.
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
} from "../client_settings/settings_json.ts";
import {
  DEFAULT_HOOK_TIMEOUT,
  type Invocation,
  ownCommandArgs,
  type Platform,
} from "./hook_command.ts";
import {
  checkShape,
  type InstallRequest,
  type OwnHandler,
  ownHandlerAt,
  reconcileHandlers,
  removeHandlers,
  usableTimeout,
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
  for (const at of handlersOf(settings, ["Stop"])) {
    const args = ownCommandArgs(at.handler, knownPaths);
    if (args?.length !== 1 || args[0] !== CODEX_STOP_COMMAND) continue;
    found.push(ownHandlerAt(at, args));
  }
  return found;
}

/** What a Codex install registers: its one Stop hook. */
export type CodexInstallRequest = Omit<
  InstallRequest,
  "events" | "watchTimeout" | "statusLine"
>;

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
  checkShape(settings, name);
  const own = findOwnCodexHandlers(settings, request.knownPaths);
  const desired = buildCodexHandler(request.invocation, {
    timeout: request.timeout ?? usableTimeout(own[0]?.handler) ??
      DEFAULT_HOOK_TIMEOUT,
    platform: request.platform,
  });
  const editor = jsonEditor(text);
  const changes = reconcileHandlers(editor, "Stop", own, desired);
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
  const changes = removeHandlers(editor, own);
  return { text: changes.length > 0 ? editor.text : text, changes };
}
