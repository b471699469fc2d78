/**
 * What the hook tells the user (not the model) once per session: config
 * problems, remembered by a fingerprint in the session's state so an
 * unchanged problem is shown once (`hook_outcome.ts` writes the
 * `systemMessage` line that carries it).
 *
 * Kept off the decision path: a healthy stop with a broken config hashes
 * its problems here without loading the guardrails or the recovery texts.
 *
 * @module
 */

import type { CliIO } from "../shared/cli_io.ts";
import { importLazily } from "../shared/lazy_import.ts";
import { formatProblems } from "../settings/load_settings.ts";
import type { SettingProblem, Settings } from "../settings/settings.ts";
import type { StateStore } from "../guardrails/state.ts";

/** Opens the session state store when first asked, once per run. */
export type StoreOpener = () => Promise<StateStore>;

/**
 * A {@link StoreOpener} for the effective settings: the state module loads
 * only when a notice or a decision needs state.
 */
export function stateStoreOpener(
  io: Pick<CliIO, "cwd" | "sleep">,
  settings: Pick<Settings, "stateDir">,
): StoreOpener {
  let store: Promise<StateStore> | null = null;
  return () =>
    store ??= importLazily<typeof import("../guardrails/state.ts")>(
      "../guardrails/state.ts",
      import.meta.url,
    ).then(({ StateStore }) =>
      new StateStore({
        cwd: io.cwd,
        stateDir: settings.stateDir,
        sleep: io.sleep,
      })
    );
}

/** A stable fingerprint of a problem list, to tell the user about it once. */
export function problemsFingerprint(
  problems: readonly SettingProblem[],
): string {
  let hash = 0x811c9dc5; // FNV-1a, 32 bit: enough to notice a change
  for (
    const char of problems.map((p) => `${p.source}|${p.message}`).join("\n")
  ) {
    hash = Math.imul(hash ^ (char.codePointAt(0) ?? 0), 0x01000193) >>> 0;
  }
  return hash.toString(16).padStart(8, "0");
}

/**
 * The config-problem notice to show now, or `null` when there are no
 * problems or this session was already told about the same ones. When state
 * cannot be used, the notice is shown: better twice than never.
 */
export async function claimConfigNotice(
  openStore: StoreOpener,
  sessionId: string,
  problems: readonly SettingProblem[],
): Promise<string | null> {
  if (problems.length === 0) return null;
  const fingerprint = problemsFingerprint(problems);
  const text = "stall-watch config problem (defaults used instead): " +
    formatProblems(problems).join("; ");
  try {
    const fresh = await (await openStore()).update(
      sessionId,
      ({ state }) =>
        state.configNotice === fingerprint
          ? { state: null, result: false }
          : { state: { ...state, configNotice: fingerprint }, result: true },
    );
    return fresh ? text : null;
  } catch {
    return text;
  }
}
