/**
 * `install --codex` / `uninstall --codex`: the Stop hook in Codex's `hooks.json`, written as Claude
 * Code's settings are, then trusted through `codex app-server` (or install says how to trust it).
 *
 * @module
 */

import type { CliIO } from "../shared/cli_io.ts";
import { claudeRoot, CODEX_DIR } from "../confined/confine.ts";
import { InputError } from "../shared/errors.ts";
import {
  displayPath,
  updateSettings,
} from "../client_settings/settings_update.ts";
import { escapeTerminal } from "../shared/terminal_text.ts";
import { askCodex, isUnavailable } from "./codex_app_server.ts";
import {
  codexHooksPath,
  type CodexScope,
  planCodexInstall,
  planCodexUninstall,
} from "./codex_registration.ts";
import {
  listCodexHooks,
  ownListedHooks,
  projectIgnored,
  trustCodexHooks,
} from "./codex_trust.ts";
import { knownPathsOf, platformOf, selfInvocation } from "./hook_command.ts";

/** What `install --codex` is asked. */
export interface CodexInstallOptions {
  scope: CodexScope;
  /** `--timeout`, or `null` to keep the registered one or default. */
  timeout: number | null;
  dryRun: boolean;
  /** The `codex` program (tests); default: `codex` on the PATH. */
  codexProgram?: string;
}

/** This stall-watch, how it is recognised, and the `hooks.json` of `scope`. */
function place(io: CliIO, scope: CodexScope) {
  const platform = platformOf(Deno.build.os);
  const invocation = selfInvocation(io.execPath, io.mainModule, platform);
  return {
    platform,
    invocation,
    knownPaths: knownPathsOf(invocation),
    path: codexHooksPath(scope, io.env, io.cwd),
  };
}

/** @throws {InputError} When this process may not write `./.codex` (baked for `.claude` only). */
function assertMayWriteCodexDir(cwd: string, command: string): void {
  const path = claudeRoot(cwd, CODEX_DIR);
  const { state } = Deno.permissions.querySync({ name: "write", path });
  if (state === "granted") return;
  throw new InputError(
    `Cannot ${command} for Codex: this stall-watch may not write ${path} (its permissions allow .claude only); use a stall-watch whose permissions include .codex`,
  );
}

/** The command a user types to do it again (in messages). */
function againCommand(command: string, scope: CodexScope): string {
  return `stall-watch ${command} --codex${scope === "user" ? " --user" : ""}`;
}

/**
 * Writes the Codex Stop hook and has Codex trust it; exit 0 written or unchanged, 1 refused.
 * Requires `--allow-read`, `--allow-env`, write access to `.codex` (not with `--dry-run`).
 */
export async function installForCodex(
  io: CliIO,
  options: CodexInstallOptions,
): Promise<number> {
  const { platform, invocation, knownPaths, path } = place(io, options.scope);
  if (!options.dryRun) assertMayWriteCodexDir(io.cwd, "install");
  const result = await updateSettings(io, {
    command: "install",
    scope: options.scope,
    path,
    dryRun: options.dryRun,
    root: CODEX_DIR,
    again: againCommand("install", options.scope),
  }, (text, name) =>
    planCodexInstall(text, name, {
      invocation,
      platform,
      knownPaths,
      timeout: options.timeout,
    }));
  if (options.dryRun) return result.exitCode;
  await trustInstalledHook(io, options, path, knownPaths);
  io.writeStdout("Check the set-up with: stall-watch doctor --codex\n");
  return result.exitCode;
}

/** Asks Codex to trust the hook just written, and says how it went. */
async function trustInstalledHook(
  io: CliIO,
  options: CodexInstallOptions,
  path: string,
  knownPaths: readonly string[],
): Promise<void> {
  const file = displayPath(io.cwd, path);
  const byHand = `open codex in ${
    escapeTerminal(io.cwd)
  }, type /hooks and trust the stall-watch Stop hook (or run "${
    againCommand("install", options.scope)
  }" where codex is on the PATH)`;
  const answer = await askCodex(io, options.codexProgram, async (client) => {
    const listing = await listCodexHooks(client, io.cwd);
    const own = ownListedHooks(listing, knownPaths, path);
    const untrusted = own.filter((h) =>
      h.trustStatus === "untrusted" || h.trustStatus === "modified"
    );
    await trustCodexHooks(client, untrusted);
    return untrusted.length > 0
      ? await listCodexHooks(client, io.cwd)
      : listing;
  }).catch((error: unknown) => ({
    unavailable: "failed" as const,
    why: error instanceof Error ? error.message : String(error),
  }));
  if (isUnavailable(answer)) {
    io.writeStderr(
      `stall-watch: warning: ${
        escapeTerminal(answer.why)
      }: the hook in ${file} is not trusted yet, and Codex skips an untrusted hook without a word; to trust it, ${byHand}\n`,
    );
    return;
  }
  const own = ownListedHooks(answer, knownPaths, path);
  if (own.length === 0) {
    const why = options.scope === "project" && projectIgnored(answer, io.cwd)
      ? `Codex reads ${file} only in a trusted project, and ${
        escapeTerminal(io.cwd)
      } is not trusted`
      : `Codex does not list the hook in ${file}`;
    io.writeStderr(
      `stall-watch: warning: ${why}: trust the project (start codex there and accept, or run it once with --trust), then run "${
        againCommand("install", options.scope)
      }" again to trust the hook\n`,
    );
    return;
  }
  const notTrusted = own.filter((h) => h.trustStatus !== "trusted");
  if (notTrusted.length > 0) {
    io.writeStderr(
      `stall-watch: warning: Codex still lists the hook as ${
        escapeTerminal(notTrusted[0]?.trustStatus ?? "")
      }: ${byHand}\n`,
    );
    return;
  }
  io.writeStdout(`Trusted in Codex: the Stop hook in ${file}\n`);
}

/**
 * Removes our Codex Stop hook from one `hooks.json` (its trust record stays, trusting nothing).
 * Requires `--allow-read`, `--allow-env`, write access to `.codex` (not with `--dry-run`).
 */
export async function uninstallForCodex(
  io: CliIO,
  options: Pick<CodexInstallOptions, "scope" | "dryRun">,
): Promise<number> {
  const { knownPaths, path } = place(io, options.scope);
  if (!options.dryRun) assertMayWriteCodexDir(io.cwd, "uninstall");
  const result = await updateSettings(io, {
    command: "uninstall",
    scope: options.scope,
    path,
    dryRun: options.dryRun,
    root: CODEX_DIR,
    again: againCommand("uninstall", options.scope),
  }, (text, name) => planCodexUninstall(text, name, knownPaths));
  return result.exitCode;
}
