/**
 * What `install` and `uninstall` share: read a settings file, plan the change, print it as a diff
 * (`--dry-run`) or back up and write it.
 *
 * @module
 */

import { basename, dirname, relativePath } from "../shared/paths.ts";
import type { CliIO } from "../shared/cli_io.ts";
import {
  CLAUDE_DIR,
  claudeRoot,
  type ConfinedRoot,
  isInside,
} from "../confined/confine.ts";
import { ExitCode, InputError } from "../shared/errors.ts";
import {
  isWritableHere,
  readSettingsFile,
  writeSettingsFile,
} from "./settings_file.ts";
import { SettingsFileError } from "./settings_json.ts";
import type { Scope } from "./settings_scope.ts";
import { unifiedDiff } from "./_unified_diff.ts";
import { shellQuote } from "../shared/shell_quote.ts";
import { escapeTerminal } from "../shared/terminal_text.ts";

/** New text for a settings file, and what changed (empty: nothing). */
export interface SettingsEdit {
  text: string;
  changes: string[];
}

interface UpdateRequest {
  command: string;
  scope: Scope;
  path: string;
  dryRun: boolean;
  /** The folder it must lie in to be written (default `.claude`). */
  root?: ConfinedRoot;
  /** The command to run elsewhere (default `stall-watch <command> --scope <scope>`). */
  again?: string;
}

/** What {@link updateSettings} did. */
export interface UpdateResult {
  exitCode: number;
  changes: string[];
}

/** Applies `plan` to one settings file; an {@link InputError} when unusable or out of reach. */
export async function updateSettings(
  io: Pick<CliIO, "cwd" | "now" | "writeStdout">,
  request: UpdateRequest,
  plan: (text: string, name: string) => SettingsEdit,
): Promise<UpdateResult> {
  const { command, path } = request;
  const name = displayPath(io.cwd, path);
  const root = request.root ?? CLAUDE_DIR;
  const writable = isWritableHere(io.cwd, path, root);
  if (!request.dryRun && !writable) {
    throw new InputError(outsideMessage(io.cwd, request));
  }
  const file = readSettingsFile(path, request.scope === "user" ? null : io.cwd);
  let result: SettingsEdit;
  try {
    result = plan(file.text, name);
  } catch (error) {
    if (error instanceof SettingsFileError) {
      throw new InputError(`Cannot ${command}: ${error.message}`);
    }
    throw error;
  }
  const { changes } = result;
  if (changes.length === 0) {
    io.writeStdout(`${name}: nothing to change\n`);
    return { exitCode: ExitCode.ok, changes };
  }
  if (request.dryRun) {
    io.writeStdout(
      unifiedDiff(file.text, result.text, name, `${name} (after ${command})`),
    );
    if (!writable) {
      io.writeStdout(
        `note: ${escapeTerminal(outsideMessage(io.cwd, request))}\n`,
      );
    }
    return { exitCode: ExitCode.ok, changes };
  }
  const backup = await writeSettingsFile(io.cwd, path, result.text, {
    now: io.now(),
    previous: file,
    root,
  });
  const saved = backup ? ` (backup: ${displayPath(io.cwd, backup)})` : "";
  io.writeStdout(
    `Updated ${name}${saved}:\n${changes.map((c) => `  ${c}\n`).join("")}`,
  );
  return { exitCode: ExitCode.ok, changes };
}

/** A path relative to the start directory when inside it, else absolute. */
export function displayPath(cwd: string, path: string): string {
  // A folder may be named with a newline or an escape sequence.
  return escapeTerminal(
    isInside(cwd, path) ? relativePath(cwd, path) || "." : path,
  );
}

/** Why a file outside `./<root>` cannot be written, and where to run instead. */
function outsideMessage(cwd: string, request: UpdateRequest): string {
  const dir = dirname(request.path);
  const root = request.root ?? CLAUDE_DIR;
  const into = request.command === "uninstall" ? "from" : "into";
  const head = `Cannot ${request.command} ${into} ${request.path}: ` +
    `stall-watch may only write inside ${claudeRoot(cwd, root)}`;
  const again = request.again ??
    `stall-watch ${request.command} --scope ${request.scope}`;
  if (basename(dir) === root) {
    return `${head}; run it from ${dirname(dir)}: cd -- ${
      shellQuote(dirname(dir))
    } && ${again}`;
  }
  return `${head}, and that file is not in a .claude folder: ` +
    `make the change by hand (${again} --dry-run shows it)`;
}
