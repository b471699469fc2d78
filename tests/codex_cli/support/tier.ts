/**
 * What the Codex tier's test files share: the pinned Codex (installed on
 * first use, or the one-line skip), and stall-watch run from source for
 * `install --codex` and `doctor --codex`.
 *
 * stall-watch runs with the release permission flags plus two the Codex
 * support needs and the release does not have yet (issue 40, phase 2 adds
 * them to `src/shared/permissions.ts`): writes to `.codex`, and starting
 * `codex app-server` for the trust. Under the release flags alone,
 * `install --codex` refuses in one line (`tests/install/codex_install_test.ts`).
 *
 * @module
 */

import { fileURLToPath } from "node:url";
import { HOOK_PERMISSION_FLAGS } from "../../../src/shared/permissions.ts";
import { findOrInstallCodex } from "./codex_install.ts";
import type { CodexSession, ProgramRun } from "./codex_session.ts";

/** The pinned Codex's binary, or null (the tier's tests are then ignored). */
export const CODEX: string | null = await findOrInstallCodex();

/** stall-watch's `main.ts`. */
export const MAIN_TS: string = fileURLToPath(
  new URL("../../../main.ts", import.meta.url),
);

/** The release flags with `.codex` writable and programs allowed. */
export const CODEX_TIER_FLAGS: readonly string[] = HOOK_PERMISSION_FLAGS.map((
  flag,
) => flag === "--allow-write=.claude" ? "--allow-write=.claude,.codex" : flag)
  .concat(["--allow-run"]);

/** Runs `stall-watch <args>` from source in `cwd` (default the project). */
export function stallWatch(
  session: CodexSession,
  args: string[],
  cwd = session.project,
): Promise<ProgramRun> {
  return session.run(Deno.execPath(), [
    "run",
    "--quiet",
    ...CODEX_TIER_FLAGS,
    MAIN_TS,
    ...args,
  ], { cwd });
}

/** Trusts the session's project in Codex (`[projects."<dir>"]`). */
export function trustProject(session: CodexSession): Promise<void> {
  return session.addConfig(
    `[projects.${JSON.stringify(session.project)}]\ntrust_level = "trusted"`,
  );
}
