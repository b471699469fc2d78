/**
 * What the user and the event log are told when a session's state or lock
 * file could not be used (`guardrails/state.ts`): moved aside, or, when it
 * holds someone else's content, left untouched with the session kept in
 * stall-watch's own folder.
 *
 * @module
 */

import type { EventName } from "../events/event_log.ts";
import { isRelocated, type StateRescue } from "../guardrails/state.ts";
import { reportLine } from "../recovery/report_line.ts";
import { escapeTerminal } from "../shared/terminal_text.ts";

/**
 * The one stderr line for a file moved aside, or a session kept
 * elsewhere: which file, why, where it went, and what the session does now.
 */
export function rescueLine(rescue: StateRescue): string {
  if (isRelocated(rescue)) {
    return reportLine(
      `session state file "${escapeTerminal(rescue.path)}" is someone ` +
        `else's (${rescue.reason}); left it untouched and kept this ` +
        `session's retry budget in "${escapeTerminal(rescue.keptIn)}"`,
    );
  }
  const fresh = rescue.file === "state"
    ? "started a fresh retry budget"
    : "took a fresh lock";
  return reportLine(
    `session ${rescue.file} file "${escapeTerminal(rescue.path)}" could not ` +
      `be used (${rescue.reason}); moved it aside to ` +
      `${escapeTerminal(rescue.movedTo)} and ${fresh}`,
  );
}

/** The event of a rescue: `state_relocated` or `state_quarantined`, and its facts. */
export function rescueEvent(
  rescue: StateRescue,
): [EventName, Record<string, unknown>] {
  return isRelocated(rescue)
    ? ["state_relocated", {
      file: rescue.file,
      path: rescue.path,
      kept_in: rescue.keptIn,
      reason: rescue.reason,
    }]
    : ["state_quarantined", {
      file: rescue.file,
      path: rescue.path,
      moved_to: rescue.movedTo,
      reason: rescue.reason,
    }];
}
