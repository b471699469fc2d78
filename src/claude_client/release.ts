/**
 * Which Claude Code release wrote a transcript and what it can do for a hook:
 * each floor is the first release seen to behave so against the fake API
 * (`deno task bisect:claude <probe>`), not the changelog's word. Pure.
 *
 * @example
 * ```ts
 * supports(releaseOf(entries), "async_rewake"); // true, false, or null (unknown)
 * ```
 *
 * @module
 */

/** A release as `[major, minor, patch]`. */
export type Release = readonly [number, number, number];

/** One feature, its first release (`x.y.z`), and what it is (for `doctor` and the docs). */
export interface FeatureFloor {
  feature: ClientFeature;
  since: string;
  what: string;
}

const VERSION = /^(\d+)\.(\d+)\.(\d+)/;

/** Each feature's first release and meaning (see {@link FEATURE_FLOORS}). */
const FLOORS = Object.freeze({
  blank_reply_unwritten: {
    since: "2.1.30",
    what: "a blank reply leaves no assistant entry (before: the text " +
      "`(no content)`)",
  },
  async_hooks: {
    since: "2.1.15",
    what: "a hook with `async: true` runs in the background (before: it " +
      "runs in line, and a watcher holds up every tool call)",
  },
  last_assistant_message: {
    since: "2.1.47",
    what: "the Stop payload carries the final reply's text " +
      "(`last_assistant_message`)",
  },
  stop_skipped_on_api_error: {
    since: "2.1.78",
    what: "no Stop fires when a turn ends on an API error (before: Stop " +
      "fires, and the hook sees the synthetic `API Error` entry)",
  },
  async_rewake: {
    since: "2.1.84",
    what: "an `asyncRewake` hook's exit 2 wakes the idle session and " +
      "reaches the model (the watchdog)",
  },
  stop_additional_context: {
    since: "2.1.163",
    what: "Stop takes `hookSpecificOutput.additionalContext` (the " +
      "`context` output mode)",
  },
  empty_result_rewrite: {
    since: "2.1.73",
    what: "an empty tool result reaches the model as " +
      "`(<tool> completed with no output)`",
  },
  empty_reply_retry: {
    since: "2.1.182",
    what: "an empty reply to a tool result is retried once, with a " +
      "hidden note, before Stop fires",
  },
  api_request_lines: {
    since: "2.1.300",
    what: "the transcript gets an `api-request` line when a model " +
      "request starts (without it the watchdog cannot tell a slow model " +
      "from a stopped one: only the idle window counts)",
  },
  hook_stopped_trace: {
    since: "2.1.97",
    what: "a turn another hook ended on purpose (`continue: false`) " +
      "leaves a `hook_stopped_continuation` line in the transcript " +
      "(before: nothing tells it from a stalled one)",
  },
  interrupted_call_result: {
    since: "2.1.281",
    what: "a call that was running when the process died gets a " +
      "result on resume, `[Tool call interrupted: ...]` (before: it " +
      "stays without one)",
  },
  status_line_refresh: {
    since: "2.1.97",
    what: "a status line with `refreshInterval` is run again every few " +
      "seconds, also while a tool call runs (before: only after events)",
  },
  subagent_last_text: {
    since: "2.1.72",
    what: "a subagent whose final message holds no text hands its parent " +
      "the text of its last message that has some (before: the parent " +
      "gets the final message's text only: \"(Subagent completed but returned no " +
      'output.)")',
  },
  lost_call_retry: {
    since: "2.1.251",
    what: "a reply that stops for `tool_use` without a call is retried " +
      "(before: the turn ends on it)",
  },
}) satisfies Record<string, { since: string; what: string }>;

/** What a client release can do that stall-watch relies on. */
export type ClientFeature = keyof typeof FLOORS;

/** The features, oldest floor first (the docs' table; a test keeps them equal). */
export const FEATURE_FLOORS: readonly FeatureFloor[] = Object.freeze(
  (Object.entries(FLOORS) as [ClientFeature, Omit<FeatureFloor, "feature">][])
    .map(([feature, floor]) => ({ feature, ...floor }))
    .sort((a, b) =>
      compareRelease(
        parseRelease(a.since) as Release,
        parseRelease(b.since) as Release,
      )
    ),
);

/** Parses `x.y.z` (a suffix such as `-beta.1` is ignored), or `null`. */
export function parseRelease(text: string): Release | null {
  const match = VERSION.exec(text);
  if (!match) return null;
  return [Number(match[1]), Number(match[2]), Number(match[3])];
}

/** Compares two releases: negative, zero or positive. */
export function compareRelease(a: Release, b: Release): number {
  return a[0] - b[0] || a[1] - b[1] || a[2] - b[2];
}

/** `x.y.z` of a release. */
export function formatRelease(release: Release): string {
  return release.join(".");
}

/** The release that wrote the newest of `entries` naming one, or `null`. */
export function releaseOf(
  entries: readonly { readonly version?: string }[],
): Release | null {
  for (let i = entries.length - 1; i >= 0; i--) {
    const version = entries[i]?.version;
    const release = version === undefined ? null : parseRelease(version);
    if (release) return release;
  }
  return null;
}

/** The first release with `feature`. */
export function featureSince(feature: ClientFeature): Release {
  return parseRelease(FLOORS[feature].since) as Release;
}

/** Whether `release` has `feature`; `null` for an unknown release (the caller decides). */
export function supports(
  release: Release | null,
  feature: ClientFeature,
): boolean | null {
  if (release === null) return null;
  return compareRelease(release, featureSince(feature)) >= 0;
}
