/**
 * The `doctor` checks of the Claude Code client: which release wrote the
 * project's newest transcript, and what works on it (the watchdog, the
 * output mode), with the fix where something does not: upgrade Claude Code,
 * or drop the watchdog or the output mode. Pure: the facts are gathered by
 * the command.
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
import type { OutputMode } from "../settings/settings.ts";
import type { CheckResult } from "./doctor_report.ts";

/** What doctor knows of the client. */
export interface ClientFacts {
  /** The project's newest session transcript, as shown; `null` for none. */
  transcript: string | null;
  /** The release its newest line names; `null` when unknown. */
  release: Release | null;
  /** The watchdog is registered (a `watch` handler in a settings file). */
  watch: boolean;
  /** The effective output mode. */
  output: OutputMode;
  /** The watchdog's idle window, in seconds. */
  idleSeconds: number;
}

function since(feature: ClientFeature): string {
  return formatRelease(featureSince(feature));
}

/** The checks, in report order. */
export function clientChecks(facts: ClientFacts): CheckResult[] {
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
