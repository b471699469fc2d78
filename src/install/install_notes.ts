/**
 * The notes `install` adds: what the user would otherwise find out later (a machine path in a
 * shared file, a new `.claude` below the project root, files git would pick up). Pure.
 *
 * @module
 */

import type { Scope } from "../client_settings/settings_scope.ts";
import { shellQuote } from "../shared/shell_quote.ts";
import { escapeTerminal } from "../shared/terminal_text.ts";

/** What the notes look at. */
export interface InstallFacts {
  scope: Scope;
  settingsFile: string;
  /** The program the handler runs (an absolute path on this machine). */
  program: string;
  /** The start folder already had a `.claude` folder. */
  claudeDirExisted: boolean;
  /** The nearest folder above holding `.git` or `.claude`, or `null`. */
  rootAbove: { dir: string; marker: ".git" | ".claude" } | null;
  /** The start folder holds `.git` (it is a repository's root). */
  isGitRoot: boolean;
  /** `.gitignore` and `.claude/.gitignore`, joined ("" when absent). */
  gitignore: string;
}

/** Files stall-watch creates that belong to this machine, not the repository. */
const MACHINE_FILES = [
  { path: ".claude/settings.local.json", names: ["settings.local.json"] },
  { path: ".claude/stall_watch/", names: ["stall_watch"] },
] as const;

/** One line per note, without the `stall-watch: note: ` prefix. */
export function installNotes(facts: InstallFacts): string[] {
  const notes: string[] = [];
  if (facts.scope === "project") {
    notes.push(
      `${facts.settingsFile} is shared through the repository, and the entry runs ${facts.program}, a path on this machine: everyone else needs stall-watch at that same path (--scope local keeps the entry to this machine)`,
    );
  }
  if (facts.scope !== "user" && !facts.claudeDirExisted && facts.rootAbove) {
    const { dir, marker } = facts.rootAbove;
    notes.push(
      `this folder had no .claude, but ${
        escapeTerminal(dir)
      } has ${marker}: if that is the project root, Claude Code will not read the new .claude here; run install there instead: cd -- ${
        escapeTerminal(shellQuote(dir))
      } && stall-watch install`,
    );
  }
  if (facts.scope !== "user" && facts.isGitRoot) {
    const missing = MACHINE_FILES.filter((file) =>
      !ignores(facts.gitignore, file.names)
    ).map((file) => file.path);
    if (missing.length > 0) {
      notes.push(
        `keep ${
          missing.join(" and ")
        } out of git (this machine's path, and session state): add ${
          missing.length === 1 ? "it" : "them"
        } to .gitignore`,
      );
    }
  }
  return notes;
}

/** Whether a `.gitignore` plainly covers a file (a loose reading: a miss costs a note). */
function ignores(gitignore: string, names: readonly string[]): boolean {
  return gitignore.split(/\r?\n/).map((line) => line.trim()).some((line) =>
    !line.startsWith("#") && !line.startsWith("!") &&
    (/^\/?\.claude\/?(\*\*?)?$/.test(line) ||
      names.some((name) => line.includes(name)))
  );
}
