/**
 * `stall-watch uninstall`: removes stall-watch's handlers from one
 * settings file and nothing else.
 *
 * @module
 */

import type { CliIO } from "../shared/cli_io.ts";
import { parseOptions } from "../shared/command_options.ts";
import {
  knownPathsOf,
  platformOf,
  selfInvocation,
} from "../install/hook_command.ts";
import {
  findOwnHandlers,
  planUninstall,
} from "../install/hook_registration.ts";
import { readSettingsFile } from "../client_settings/settings_file.ts";
import { parseSettingsText } from "../client_settings/settings_json.ts";
import {
  applicableSettingsFiles,
  parseScope,
  settingsPath,
} from "../client_settings/settings_scope.ts";
import {
  displayPath,
  updateSettings,
} from "../client_settings/settings_update.ts";
import { DEFAULT_SCOPE } from "./install.ts";
import { uninstallForCodex } from "../install/codex_install.ts";
import { UsageError } from "../shared/errors.ts";

/** The `help uninstall` text. */
export const help: string =
  `stall-watch uninstall: remove stall-watch's hook handlers

Usage:
  stall-watch uninstall [--scope local|project|user] [--dry-run]
  stall-watch uninstall --codex [--user] [--dry-run]

Removes every stall-watch handler (Stop, SubagentStop, and the PostToolUse
and PostToolUseFailure "watch" handlers) from one settings file, plus the
matcher groups and event lists this leaves empty, and its status line
("stall-watch statusline"). Every other key, handler and the file's
formatting stay; the old file is backed up to .claude/stall_watch/backups/
first.
  --scope local    .claude/settings.local.json (default)
  --scope project  .claude/settings.json
  --scope user     ~/.claude/settings.json (run from your home folder)
  --dry-run        print the change as a diff and write nothing

With --codex, removes stall-watch's Codex Stop hook from .codex/hooks.json
(--user: $CODEX_HOME/hooks.json) instead, and nothing else.

Afterwards it lists the other settings files that still register
stall-watch. Exit codes: 0 done (or nothing to remove), 1 file refused or
not writable from here, 64 usage error.
`;

/** Runs `uninstall`. Requires `--allow-read`, `--allow-env`, and writes `.claude` (not with `--dry-run`). */
export async function run(
  args: readonly string[],
  io: CliIO,
): Promise<number> {
  const options = parseOptions("uninstall", args, {
    scope: "value",
    "dry-run": "flag",
    codex: "flag",
    user: "flag",
  });
  if (options.codex || options.user) {
    if (!options.codex || options.scope !== undefined) {
      throw new UsageError(
        '"--user" goes with "--codex", "--scope" with Claude Code',
      );
    }
    return await uninstallForCodex(io, {
      scope: options.user ? "user" : "project",
      dryRun: options["dry-run"] === true,
    });
  }
  const scope = typeof options.scope === "string"
    ? parseScope(options.scope)
    : DEFAULT_SCOPE;
  const invocation = selfInvocation(
    io.execPath,
    io.mainModule,
    platformOf(Deno.build.os),
  );
  const knownPaths = knownPathsOf(invocation);
  const path = settingsPath(scope, io.env, io.cwd);
  const result = await updateSettings(io, {
    command: "uninstall",
    scope,
    path,
    dryRun: options["dry-run"] === true,
  }, (text, name) => planUninstall(text, name, knownPaths));
  for (const other of applicableSettingsFiles(io.env, io.cwd)) {
    if (other.path === path) continue;
    if (
      registersStallWatch(
        other.path,
        other.scope === "user" ? null : io.cwd,
        knownPaths,
      )
    ) {
      io.writeStdout(
        `stall-watch is still registered in ${
          displayPath(io.cwd, other.path)
        } (remove with --scope ${other.scope})\n`,
      );
    }
  }
  return result.exitCode;
}

function registersStallWatch(
  path: string,
  projectDir: string | null,
  knownPaths: readonly string[],
): boolean {
  try {
    const { text } = readSettingsFile(path, projectDir);
    return findOwnHandlers(parseSettingsText(text, path), knownPaths).length >
      0;
  } catch {
    return false; // unreadable or broken: doctor reports that
  }
}
