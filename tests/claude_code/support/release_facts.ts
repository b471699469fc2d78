/**
 * What a release of the matrix does differently, for the scenarios'
 * expectations. Two kinds:
 *
 * - behaviours stall-watch itself knows (`src/claude_client/release.ts`:
 *   each floor found by bisecting npm releases with a probe), read through
 *   {@link has}, so a scenario that expects a behaviour checks the gate the
 *   hook uses too;
 * - what only the tier cares about (screens, extra events), below, each
 *   with the releases it was seen on. These are not bisected: the tier
 *   needs them right for the matrix releases only.
 *
 * @module
 */

import {
  type ClientFeature,
  parseRelease,
  supports,
} from "../../../src/claude_client/release.ts";
import { compareReleases } from "./claude_install.ts";

/** Whether `release` has `feature`, by the gate stall-watch uses. */
export function has(release: string, feature: ClientFeature): boolean {
  const known = supports(parseRelease(release), feature);
  if (known === null) throw new Error(`not a release: ${release}`);
  return known;
}

/** What the tier's scenarios must know of one release beyond the gates. */
export interface ReleaseFacts {
  /**
   * It starts `Warmup` subagents at launch, each ending with a SubagentStop
   * of its own (2.0.76; not 2.1.47).
   */
  warmupSubagents: boolean;
  /**
   * The main transcript gets `system` / `stop_hook_summary` lines after the
   * Stop hooks ran (2.1.332; not 2.1.214).
   */
  stopHookSummaryLines: boolean;
  /**
   * A hook's `systemMessage` is shown in `-p` stream-json as a `system`
   * `informational` event (2.1.332; not 2.1.214).
   */
  systemMessageEvents: boolean;
  /**
   * A Stop hook's JSON `decision: block` reason reaches the model a second
   * time, as a system message naming the command (2.1.332; not 2.1.214).
   */
  jsonReasonAsSystemMessage: boolean;
  /**
   * A hook's `systemMessage` is kept in the transcript as a
   * `hook_system_message` attachment (2.1.145 on; not 2.1.90).
   */
  systemMessageAttachments: boolean;
  /** The `-p` result of an API error has `api_error_status` (2.1.145 on; not 2.1.90). */
  apiErrorStatus: boolean;
  /**
   * A subagent's transcript is `<session>/subagents/agent-<id>.jsonl`
   * (2.1.47 on), not `agent-<id>.jsonl` beside the session's file (2.0.76).
   */
  subagentsFolder: boolean;
  /** The input line starts with `❯` (2.1 on) or `>` (2.0). */
  promptMark: "❯" | ">";
  /** A finished turn shows `· done` under the answer (2.1.332; not 2.1.214). */
  doneLine: boolean;
  /**
   * How the screen shows a Stop hook's block: 2.1.332 says "Stop hook
   * reported a problem" (status line "stop hook problem · ctrl+o to see");
   * 2.0.76 to 2.1.214 say "Stop hook error: " before the text ("Stop hook
   * error occurred · ctrl+o to see").
   */
  blockOnScreen: { headline: string; status: string };
  /**
   * How the screen labels a Stop hook's additionalContext: "Stop hook says"
   * (2.1.332), "Stop hook feedback" (2.1.214).
   */
  contextOnScreen: string;
  /**
   * A `-p` session whose last reply is empty after a block ends with
   * result subtype `error_during_execution` (2.0.76, 2.1.47), not `success`
   * (2.1.90 on).
   */
  silentEndIsError: boolean;
  /**
   * The Stop of a turn a watcher woke has `stop_hook_active: true` (2.1.145
   * on; 2.1.90 sends false).
   */
  wakeSetsStopHookActive: boolean;
}

/**
 * The facts of `release`. Each boundary lies between the last matrix
 * release without the behaviour and the first with it; for a release in
 * between (a quick run of another one), the newer side is assumed.
 */
export function factsOf(release: string): ReleaseFacts {
  const after = (last: string) => compareReleases(release, last) > 0;
  return {
    warmupSubagents: !after("2.0.76"),
    stopHookSummaryLines: after("2.1.214"),
    systemMessageEvents: after("2.1.214"),
    jsonReasonAsSystemMessage: after("2.1.214"),
    systemMessageAttachments: after("2.1.90"),
    apiErrorStatus: after("2.1.90"),
    subagentsFolder: after("2.0.76"),
    promptMark: after("2.0.76") ? "❯" : ">",
    doneLine: after("2.1.214"),
    blockOnScreen: after("2.1.214")
      ? {
        headline: "Stop hook reported a problem",
        status: "stop hook problem · ctrl+o to see",
      }
      : {
        headline: "Stop hook error: ",
        status: "Stop hook error occurred · ctrl+o to see",
      },
    contextOnScreen: after("2.1.214") ? "Stop hook says" : "Stop hook feedback",
    silentEndIsError: !after("2.1.47"),
    wakeSetsStopHookActive: after("2.1.90"),
  };
}
