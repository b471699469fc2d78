/**
 * `stall-watch reset`: clears the retry counts and cooldown clock of one
 * session or all, under each session's lock.
 *
 * @module
 */

import { escapeTerminal } from "../shared/terminal_text.ts";
import type { CliIO } from "../shared/cli_io.ts";
import { parseCommandLine } from "../shared/command_options.ts";
import { ConfinementError } from "../confined/confine.ts";
import {
  describe,
  ExitCode,
  InputError,
  UsageError,
} from "../shared/errors.ts";
import { formatProblems, loadSettings } from "../config/load_settings.ts";
import { type RemovedState, StateStore } from "../guardrails/state.ts";
import type { SessionState } from "../guardrails/session_state.ts";

/** The `help reset` text. */
export const help: string =
  `stall-watch reset: clear the retry and cooldown state

Usage:
  stall-watch reset <SESSION_ID>
  stall-watch reset --all
  stall-watch reset --list

Removes the session's state file from the state folder (.claude/stall_watch
unless STALL_WATCH_STATE_DIR or "state_dir" says otherwise), so its calls
may be nudged again up to the retry cap and no cooldown is pending. Run it
in the project root. Each file is removed under the session's lock, so a
hook running at the same moment never loses an update; lock files stay.
Files in the state folder that do not hold stall-watch state are left
alone and named. Nothing to remove is not an error. --list shows each
session's state (retries per call, last recovery) and removes nothing.

Exit codes: 0 done (also when there was nothing to remove), 1 the state
folder is refused (outside .claude) or a file cannot be removed, 64 usage
error.
`;

/** Runs `reset`. Requires `--allow-read` and write access to `.claude`. */
export async function run(args: readonly string[], io: CliIO): Promise<number> {
  const { options, positionals } = parseCommandLine("reset", args, {
    all: "flag",
    list: "flag",
  }, 1);
  const sessionId = positionals[0];
  const all = options.all === true;
  const list = options.list === true;
  if ([all, list, sessionId !== undefined].filter(Boolean).length !== 1) {
    throw new UsageError(
      `"reset" needs one of a session id, --all or --list: run "stall-watch help reset"`,
    );
  }
  const { settings, problems } = await loadSettings(io.env, io.cwd);
  for (const line of formatProblems(problems)) {
    io.writeStderr(`stall-watch: config: ${line}\n`);
  }
  const store = new StateStore({
    cwd: io.cwd,
    stateDir: settings.stateDir,
    sleep: io.sleep,
  });
  if (list) {
    io.writeStdout(listStates(store, settings.stateDir));
    return ExitCode.ok;
  }
  const ids = all ? store.sessionIds() : [sessionId as string];
  const lines: string[] = [];
  let removed = 0;
  let failed = 0;
  for (const id of ids) {
    let result: RemovedState;
    try {
      result = await store.remove(id);
    } catch (error) {
      if (error instanceof ConfinementError) throw error;
      const line = `Cannot reset session "${id}": ${describe(error)}`;
      if (!all) throw new InputError(line);
      io.writeStderr(`stall-watch: ${line}\n`);
      failed++;
      continue;
    }
    if (result.status === "removed") {
      removed++;
      lines.push(`removed ${id}: ${describeState(result.state)}`);
    } else if (result.status === "kept") {
      lines.push(`left ${id}.json: ${result.reason}`);
    } else if (!all) {
      lines.push(
        `nothing to reset: no state for session ${id} (stall-watch reset --list shows the sessions)`,
      );
    }
  }
  if (all) {
    lines.push(
      removed === 0
        ? `nothing to reset: no session state in ${settings.stateDir}`
        : `reset ${removed} session${
          removed === 1 ? "" : "s"
        } in ${settings.stateDir}`,
    );
  }
  // Ids and counts come from state files anyone may have planted.
  io.writeStdout(lines.map((l) => escapeTerminal(l) + "\n").join(""));
  return failed > 0 ? ExitCode.inputError : ExitCode.ok;
}

/** One line per session with state, then a count; nothing is changed. */
function listStates(store: StateStore, stateDir: string): string {
  const ids = store.sessionIds();
  const lines: string[] = [];
  for (const id of ids) {
    const { state, note } = store.read(id);
    lines.push(`${id}: ${note ?? describeState(state)}`);
  }
  lines.push(
    ids.length === 0
      ? `no session state in ${stateDir}`
      : `${ids.length} session${
        ids.length === 1 ? "" : "s"
      } in ${stateDir}; "stall-watch reset <SESSION_ID>" or "--all" clears them`,
  );
  return lines.map((l) => escapeTerminal(l) + "\n").join("");
}

/** `3 retries on 2 calls (toolu_a 2, toolu_b 1), last recovery 2026-...Z`. */
function describeState(state: SessionState): string {
  const retries = Object.entries(state.retries).filter(([, n]) => n > 0);
  const total = retries.reduce((sum, [, n]) => sum + n, 0);
  const parts = [
    retries.length === 0
      ? "no retries"
      : `${total} ${
        total === 1 ? "retry" : "retries"
      } on ${retries.length} call${retries.length === 1 ? "" : "s"} (${
        retries.map(([id, n]) => `${id} ${n}`).join(", ")
      })`,
  ];
  if (state.lastRecoveryAt > 0) {
    const at = new Date(state.lastRecoveryAt * 1000).toISOString();
    parts.push(`last recovery ${at.replace(/\.\d+Z$/, "Z")}`);
  }
  return parts.join(", ");
}
