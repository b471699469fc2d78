/**
 * Claude Code's end-of-turn marker: the `system` line with subtype
 * `turn_duration` it appends when a turn is over, including turns that end
 * on a tool result, where no Stop hook fires. The entry model treats it as
 * metadata; only the watchdog's turn follower asks for it.
 *
 * @module
 */

/** True for a main-transcript `turn_duration` line. */
export function isTurnEndMarker(object: Record<string, unknown>): boolean {
  return object.type === "system" && object.subtype === "turn_duration" &&
    object.isSidechain !== true;
}
