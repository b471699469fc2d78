/**
 * The compatibility table of `docs/compatibility.md` (Claude Code release
 * range -> what works), generated from the client floors stall-watch gates
 * on (`src/claude_client/release.ts`): each floor was found by bisecting npm
 * releases with a real-client probe, and every run of the real-client
 * tier's matrix checks each release against all of them
 * (`tests/claude_code/features_test.ts`). `tests/claude_client/compat_table_test.ts`
 * keeps the page equal to this; print it with
 * `deno run tests/support/compat_table.ts`.
 *
 * @module
 */

import {
  FEATURE_FLOORS,
  type FeatureFloor,
  parseRelease,
  type Release,
  supports,
} from "../../src/claude_client/release.ts";

/** The oldest release the matrix runs. */
export const OLDEST_TESTED = "2.0.76";

/** Where the generated table starts and ends in the page. */
export const BEGIN =
  "<!-- compat-table:begin (generated: tests/support/compat_table.ts) -->";
export const END = "<!-- compat-table:end -->";

function watchdog(release: Release): string {
  if (!supports(release, "async_hooks")) {
    return "no: `watch` exits at once (and hooks run in line)";
  }
  if (!supports(release, "async_rewake")) return "no: `watch` exits at once";
  const nudged = [
    ...supports(release, "api_request_lines")
      ? []
      : ["a reply slower than the idle window"],
    ...supports(release, "hook_stopped_trace")
      ? []
      : ["a turn another hook ended (`continue: false`)"],
  ];
  if (nudged.length === 0) return "yes";
  return `yes; ${nudged.join(" and ")} ${
    nudged.length === 1 ? "is" : "are"
  } nudged`;
}

function statusLine(release: Release): string {
  return supports(release, "status_line_refresh")
    ? "yes"
    : "no: run only after events, not while a call runs";
}

function context(release: Release): string {
  return supports(release, "stop_additional_context")
    ? "yes"
    : "no: falls back to `stderr`";
}

function lagWait(release: Release): string {
  return supports(release, "last_assistant_message")
    ? "for a file behind the Stop"
    : "for a file behind the Stop, and for a final reply the payload cannot carry";
}

/** The table's markdown, one row per range between two floors. */
export function compatTable(): string {
  const floors = FEATURE_FLOORS;
  const starts: { since: string; news: FeatureFloor[] }[] = [
    { since: OLDEST_TESTED, news: [] },
  ];
  for (const floor of floors) {
    const last = starts.at(-1)!;
    if (last.since === floor.since) last.news.push(floor);
    else starts.push({ since: floor.since, news: [floor] });
  }
  const rows = starts.map((start, i) => {
    const next = starts[i + 1];
    const range = next
      ? `${start.since} to before ${next.since}`
      : `${start.since} and later`;
    const release = parseRelease(start.since) as Release;
    const news = start.news.length === 0
      ? "the oldest release tested"
      : start.news.map((f) => `\`${f.feature}\`: ${f.what}`).join("; ");
    return `| ${range} | yes | ${watchdog(release)} | ${context(release)} | ${
      lagWait(release)
    } | ${statusLine(release)} | ${news} |`;
  });
  return [
    "| Claude Code | Stop hook | watchdog (`install --watch`) | `output: context` | lag wait (up to `lag_wait_ms`) | hung call named (`statusline`) | new from this release |",
    "| --- | --- | --- | --- | --- | --- | --- |",
    ...rows,
  ].join("\n");
}

if (import.meta.main) console.log(compatTable());
