/**
 * doctor's checks of the Claude Code release of the project's newest
 * transcript: what works on it (watchdog, output mode, status line).
 *
 * @module
 */

import {
  type ClientFeature,
  featureSince,
  formatRelease,
  type Release,
  supports,
} from "../claude_client/release.ts";
import type { OutputMode } from "../config/settings.ts";
import type { CheckResult } from "./doctor_report.ts";

/** What doctor knows of the client. */
export interface ClientFacts {
  /** The project's newest session transcript, as shown; `null` for none. */
  transcript: string | null;
  release: Release | null;
  watch: boolean;
  output: OutputMode;
  idleSeconds: number;
  /** Others' hooks that can end a turn after a call: `<event> in <file>: <command>`. */
  turnEndingHooks?: readonly string[];
  /** stall-watch's own status line: the settings file, its `refreshInterval`, `statusline.after_seconds`. */
  statusLine?: {
    file: string;
    refreshSeconds: number | null;
    afterSeconds: number;
  } | null;
}

function since(feature: ClientFeature): string {
  return formatRelease(featureSince(feature));
}

/** The checks, in report order. */
export function clientChecks(facts: ClientFacts): CheckResult[] {
  return [
    ...releaseChecks(facts),
    ...turnEndingChecks(facts),
    ...statusLineChecks(facts),
  ];
}

/** Whether the status line can name a call hung in flight (`refreshInterval`, 2.1.97+). */
function statusLineChecks(facts: ClientFacts): CheckResult[] {
  const line = facts.statusLine;
  if (!line) return [];
  const at = `the status line in ${line.file}`;
  if (line.refreshSeconds === null) {
    return [{
      status: "warn",
      text:
        `${at} has no refreshInterval: Claude Code runs it only after events, never while a call runs, so a hung call is not named`,
      fix: 'run "stall-watch install --statusline" (it sets one)',
    }];
  }
  const release = facts.release;
  if (release !== null && !supports(release, "status_line_refresh")) {
    return [{
      status: "warn",
      text: `Claude Code ${
        formatRelease(release)
      } runs ${at} only after events (from ${
        since("status_line_refresh")
      } also every refreshInterval while a call runs), so a hung call is not named`,
      fix: `upgrade Claude Code to ${since("status_line_refresh")} or later`,
    }];
  }
  return [{
    status: "ok",
    text:
      `${at} names a tool call that has had no result for ${line.afterSeconds} s (looked at every ${line.refreshSeconds} s)`,
  }];
}

/**
 * When another hook ends a turn (`continue: false` on Pre/PostToolUse) no
 * Stop fires: from 2.1.97 the stop is recorded and the watchdog stays
 * silent; before, it looks like an unanswered result and is woken.
 */
function turnEndingChecks(facts: ClientFacts): CheckResult[] {
  const hooks = facts.turnEndingHooks ?? [];
  if (hooks.length === 0 || !facts.watch) return [];
  const release = facts.release;
  const floor = since("hook_stopped_trace");
  const which = `${hooks.length} other hook${
    hooks.length === 1 ? "" : "s"
  } can end a turn after a tool call (by returning "continue": false): ${
    hooks.join("; ")
  }`;
  if (release !== null && supports(release, "hook_stopped_trace")) {
    return [{
      status: "ok",
      text: `${which}; Claude Code ${
        formatRelease(release)
      } records such a stop, and the watchdog leaves that turn alone`,
    }];
  }
  // Where the watchdog cannot wake anyone, it exits at once anyway.
  if (release !== null && !supports(release, "async_rewake")) return [];
  const on = release === null
    ? `if your Claude Code is older than ${floor}, it`
    : `Claude Code ${formatRelease(release)}`;
  return [{
    status: "warn",
    text:
      `${which}. ${on} leaves no record of such a stop (${floor} does), so the watchdog takes that turn for a tool result nobody answered and wakes the session after its idle window (${facts.idleSeconds} s), once per call, overriding that hook's stop`,
    fix:
      `upgrade Claude Code to ${floor} or later, or drop the watchdog ("stall-watch uninstall", then "stall-watch install" without --watch)`,
  }];
}

function releaseChecks(facts: ClientFacts): CheckResult[] {
  if (facts.transcript === null) {
    return [{
      status: "ok",
      text:
        "Claude Code release: unknown (no transcript of this project yet; it shows after the first session)",
    }];
  }
  const release = facts.release;
  if (release === null) {
    return [{
      status: "ok",
      text:
        `Claude Code release: unknown (${facts.transcript} names none; what depends on it is assumed to work)`,
    }];
  }
  const name = formatRelease(release);
  const results: CheckResult[] = [{
    status: "ok",
    text:
      `Claude Code ${name} wrote this project's newest transcript (${facts.transcript})`,
  }];
  const has = (feature: ClientFeature) => supports(release, feature) === true;
  if (facts.watch) {
    if (!has("async_rewake")) {
      results.push({
        status: "warn",
        text: `the watchdog cannot wake a session on Claude Code ${name}: ` +
          `it needs asyncRewake (${since("async_rewake")}+), so watch exits ` +
          "at once and only the Stop hook nudges" +
          (has("async_hooks")
            ? ""
            : ` (and before ${
              since("async_hooks")
            } each watcher still starts in line, after every tool call)`),
        fix: `upgrade Claude Code to ${
          since("async_rewake")
        } or later, or drop the watchdog ("stall-watch uninstall", then "stall-watch install" without --watch)`,
      });
    } else if (!has("api_request_lines")) {
      results.push({
        status: "warn",
        text: `the watchdog works on Claude Code ${name}, but before ${
          since("api_request_lines")
        } the transcript does not show a model request running: a reply slower than the idle window (${facts.idleSeconds} s) gets a nudge it did not need`,
        fix: `upgrade Claude Code to ${
          since("api_request_lines")
        } or later, or raise watch.idle_seconds above your slowest replies`,
      });
    } else {
      results.push({
        status: "ok",
        text: `the watchdog works on Claude Code ${name}`,
      });
    }
  }
  if (facts.output === "context" && !has("stop_additional_context")) {
    results.push({
      status: "warn",
      text: `output "context" needs Claude Code ${
        since("stop_additional_context")
      } or later: on ${name} each block uses exit 2 and stderr instead`,
      fix: `upgrade Claude Code to ${
        since("stop_additional_context")
      } or later, or set output to "stderr" or "json"`,
    });
  } else {
    results.push({
      status: "ok",
      text: `output "${facts.output}" works on Claude Code ${name}`,
    });
  }
  return results;
}
