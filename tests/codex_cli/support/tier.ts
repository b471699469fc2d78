/**
 * What the Codex tier's test files share: the pinned Codex (installed on
 * first use, or the one-line skip), and stall-watch run from source with
 * the release permission flags (writes to `.claude` and `.codex`, and
 * `codex` the one program it may start, for `install --codex` and
 * `doctor`), for its commands and as Codex's Stop hook.
 *
 * @module
 */

import { fileURLToPath } from "node:url";
import { HOOK_PERMISSION_FLAGS } from "../../../src/shared/permissions.ts";
import { SOURCE_RUN_FLAGS } from "../../../src/install/hook_command.ts";
import { missing, onWindows, skipWhere } from "../../support/platform.ts";
import { findOrInstallCodex } from "./codex_install.ts";
import {
  type CodexSession,
  type CodexSessionOptions,
  type ProgramRun,
  shellQuote,
  withCodexSession,
} from "./codex_session.ts";

/** The pinned Codex's binary, or null (the tier's tests are then ignored). */
export const CODEX: string | null = await findOrInstallCodex();

/**
 * A test of the tier, `[codex] <name>`, with a fresh session (ignored when
 * the pinned Codex is missing).
 */
export function codexTest(
  name: string,
  options: Omit<CodexSessionOptions, "codex">,
  fn: (session: CodexSession) => Promise<void>,
): void {
  Deno.test({
    ...skipWhere(
      `[codex] ${name}`,
      onWindows("the tier's Codex session and hook wrapper are POSIX shell"),
      missing(
        CODEX === null,
        "the pinned Codex CLI could not be installed or run (a line above says why)",
      ),
    ),
    fn: () => withCodexSession({ codex: CODEX!, ...options }, fn),
  });
}

/** stall-watch's `main.ts`. */
export const MAIN_TS: string = fileURLToPath(
  new URL("../../../main.ts", import.meta.url),
);

/** The flags of a stall-watch run from source: the release's. */
export const CODEX_TIER_FLAGS: readonly string[] = [
  ...SOURCE_RUN_FLAGS,
  ...HOOK_PERMISSION_FLAGS,
];

/**
 * An inner Stop hook (see `setStopHook`) that is stall-watch's Codex door,
 * `codex-stop`, run from source as `install --codex` registers it.
 */
export const CODEX_STOP_HOOK: string = `exec ${
  [Deno.execPath(), "run", ...CODEX_TIER_FLAGS, MAIN_TS, "codex-stop"].map(
    shellQuote,
  ).join(" ")
}\n`;

/** Runs `stall-watch <args>` from source in `cwd` (default the project). */
export function stallWatch(
  session: CodexSession,
  args: string[],
  cwd = session.project,
): Promise<ProgramRun> {
  return session.run(Deno.execPath(), [
    "run",
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
