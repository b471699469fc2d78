/**
 * `doctor`'s Codex checks: Codex silently skips a `hooks.json` hook not
 * trusted or changed since, and a project's `.codex/` in an untrusted
 * project, so Codex is asked (`hooks/list`). {@link codexChecks} is pure.
 *
 * @module
 */

import type { CliIO } from "../shared/cli_io.ts";
import { describe } from "../shared/errors.ts";
import { readSettingsFile } from "../client_settings/settings_file.ts";
import { parseSettingsText } from "../client_settings/settings_json.ts";
import { displayPath } from "../client_settings/settings_update.ts";
import {
  type AppServerUnavailable,
  askCodex,
  isUnavailable,
} from "../install/codex_app_server.ts";
import {
  codexHooksPath,
  type CodexScope,
  findOwnCodexHandlers,
} from "../install/codex_registration.ts";
import {
  type HookListing,
  listCodexHooks,
  ownListedHooks,
  projectIgnored,
} from "../install/codex_trust.ts";
import {
  describeCommand,
  knownPathsOf,
  platformOf,
  selfInvocation,
} from "../install/hook_command.ts";
import { handlerPaths } from "./doctor_checks.ts";
import { isFile } from "./doctor_probes.ts";
import type { CheckResult } from "./doctor_report.ts";

/** One Codex `hooks.json`, as doctor found it. */
export interface CodexFileFacts {
  scope: CodexScope;
  /** The absolute path (to match Codex's `sourcePath`). */
  path: string;
  display: string;
  exists: boolean;
  /** Why it could not be read or parsed, else null. */
  error: string | null;
  /** The commands of stall-watch's Codex Stop handlers in it. */
  commands: string[];
  /** Program files the handlers name that are missing or no file. */
  missingPrograms: string[];
}

/** Everything the Codex checks need. */
export interface CodexFacts {
  cwd: string;
  files: CodexFileFacts[];
  /** What Codex listed, or why it could not be asked; null: not asked. */
  listing: HookListing | AppServerUnavailable | null;
  /** Hooks of Codex's listing that are stall-watch's, per file path. */
  trust: Map<string, string[]>;
  /** `doctor --codex`: no hook registered is a failure, not silence. */
  required: boolean;
}

/**
 * Reads both hooks files and, when one registers us (or `required`), asks
 * Codex. Requires `--allow-read`, `--allow-env` (`--allow-run` to ask).
 */
export async function gatherCodexFacts(
  io: CliIO,
  required: boolean,
): Promise<CodexFacts> {
  const platform = platformOf(Deno.build.os);
  const knownPaths = knownPathsOf(
    selfInvocation(io.execPath, io.mainModule, platform),
  );
  const files: CodexFileFacts[] = [];
  for (const scope of ["project", "user"] as const) {
    let path: string;
    try {
      path = codexHooksPath(scope, io.env, io.cwd);
    } catch {
      continue; // no home for the user's file
    }
    if (files.some((f) => f.path === path)) continue;
    files.push(await fileFacts(scope, path, io.cwd, knownPaths));
  }
  const facts: CodexFacts = {
    cwd: io.cwd,
    files,
    listing: null,
    trust: new Map(),
    required,
  };
  if (!required && files.every((f) => f.commands.length === 0)) return facts;
  const answer = await askCodex(
    io,
    undefined,
    (client) => listCodexHooks(client, io.cwd),
  ).catch((
    error: unknown,
  ): AppServerUnavailable => ({ unavailable: "failed", why: describe(error) }));
  facts.listing = answer;
  if (!isUnavailable(answer)) {
    for (const file of files) {
      facts.trust.set(
        file.path,
        ownListedHooks(answer, knownPaths, file.path).map((h) =>
          h.enabled ? h.trustStatus : "disabled"
        ),
      );
    }
  }
  return facts;
}

async function fileFacts(
  scope: CodexScope,
  path: string,
  cwd: string,
  knownPaths: readonly string[],
): Promise<CodexFileFacts> {
  const facts: CodexFileFacts = {
    scope,
    path,
    display: displayPath(cwd, path),
    exists: false,
    error: null,
    commands: [],
    missingPrograms: [],
  };
  try {
    const file = readSettingsFile(path, scope === "user" ? null : cwd);
    facts.exists = file.exists;
    if (!file.exists) return facts;
    const handlers = findOwnCodexHandlers(
      parseSettingsText(file.text, facts.display),
      knownPaths,
    );
    facts.commands = handlers.map((h) => describeCommand(h.handler));
    for (const handler of handlers) {
      for (const program of handlerPaths(handler.handler, cwd).resolved) {
        if (!await isFile(program)) facts.missingPrograms.push(program);
      }
    }
  } catch (error) {
    facts.error = describe(error);
  }
  return facts;
}

/** The Codex lines of the checklist. */
export function codexChecks(facts: CodexFacts): CheckResult[] {
  const results: CheckResult[] = [];
  for (const file of facts.files) {
    if (file.error !== null) {
      results.push({
        status: "fail",
        text: `Codex: ${file.error}`,
        fix: `make ${file.display} strict JSON again (or remove it)`,
      });
    }
  }
  const registered = facts.files.filter((f) => f.commands.length > 0);
  if (registered.length === 0) {
    if (facts.required) {
      results.push({
        status: "fail",
        text: "Codex: no hooks.json registers stall-watch's Stop hook",
        fix: "run stall-watch install --codex in the project root",
      });
    }
    return results;
  }
  for (const file of registered) {
    const what = `Codex: the Stop hook in ${file.display}`;
    results.push({
      status: "ok",
      text: `${what}: ${file.commands.join("; ")}`,
    });
    if (file.commands.length > 1) {
      results.push({
        status: "warn",
        text: `${what} is registered ${file.commands.length} times`,
        fix: "run stall-watch install --codex again: it keeps one",
      });
    }
    for (const program of file.missingPrograms) {
      results.push({
        status: "fail",
        text: `${what} runs ${program}, which is not a file`,
        fix:
          "run stall-watch install --codex again with the stall-watch you keep",
      });
    }
    results.push(trustResult(facts, file, what));
  }
  return results;
}

const TRUST_FIX =
  'run "stall-watch install --codex" again (it trusts the hook through codex app-server), or trust it with /hooks in codex';

function trustResult(
  facts: CodexFacts,
  file: CodexFileFacts,
  what: string,
): CheckResult {
  const listing = facts.listing;
  if (listing === null || isUnavailable(listing)) {
    return {
      status: "warn",
      text: `${what}: cannot ask Codex whether it will run it (${
        listing?.why ?? "not asked"
      })`,
      fix:
        "check with /hooks in codex: an untrusted hook is skipped without a word",
    };
  }
  const statuses = facts.trust.get(file.path) ?? [];
  if (statuses.length === 0) {
    if (file.scope === "project" && projectIgnored(listing, facts.cwd)) {
      return {
        status: "fail",
        text:
          `${what}: Codex ignores it: this project is not trusted, and Codex reads .codex/ only in a trusted project`,
        fix:
          `trust the project in codex (start codex in ${facts.cwd} and accept), then ${TRUST_FIX}`,
      };
    }
    return {
      status: "fail",
      text: `${what}: Codex does not list it, so it will not run`,
      fix:
        "check that hooks are enabled (codex features list) and see /hooks in codex",
    };
  }
  if (statuses.every((s) => s === "trusted" || s === "managed")) {
    return { status: "ok", text: `${what}: trusted: Codex will run it` };
  }
  const status = statuses.find((s) => s !== "trusted" && s !== "managed");
  const why = status === "modified"
    ? "changed since it was trusted"
    : status === "disabled"
    ? "disabled"
    : "not trusted";
  return {
    status: "fail",
    text: `${what}: ${why}: Codex skips it without a word`,
    fix: status === "disabled" ? "enable it with /hooks in codex" : TRUST_FIX,
  };
}
