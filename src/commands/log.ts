/**
 * `stall-watch log`: summarises the event log and its rotated `.1`: events
 * by type, stalls by kind, per session, and the last decisions.
 *
 * @module
 */

import { resolvePath } from "../shared/paths.ts";
import { STALL_KINDS } from "../detection/classify.ts";
import type { CliIO } from "../shared/cli_io.ts";
import { parseCommandLine, parseSince } from "../shared/command_options.ts";
import { escapeTerminal } from "../shared/terminal_text.ts";
import {
  describe,
  ExitCode,
  InputError,
  UsageError,
} from "../shared/errors.ts";
import {
  describeDecision,
  EventLogSummarizer,
  type EventLogSummary,
} from "../events/event_log_summary.ts";
import { decodeUtf8 } from "../transcript/json_line.ts";
import { readLinesForward } from "../transcript/line_reader.ts";
import { openRegularFile } from "../shared/regular_file.ts";
import { formatProblems, loadSettings } from "../config/load_settings.ts";
import { formatCount } from "../shared/number_format.ts";
import { type Style, styleFor } from "../shared/term_style.ts";
import { renderTable } from "../shared/text_table.ts";

/** The `help log` text. */
export const help: string = `stall-watch log: summarise the event log

Usage:
  stall-watch log [--file PATH] [--session ID] [--since WHEN] [--last N]
                  [--json]

Reads the event log (.claude/stall_watch/events.jsonl unless
STALL_WATCH_LOG_FILE or "event_log.path" says otherwise; --file names
another) and the rotated PATH.1 before it, and prints: events by type,
stalled calls by kind, per session the stalls seen, recoveries sent, retry
cap hits and cooldown skips, and the last N decisions (default 10).

  --session ID  only that session's events (a note on stderr names the
                latest sessions when it has none)
  --since WHEN  only events at or after WHEN: a date (2026-03-01, UTC), an
                ISO 8601 date-time, or a time back such as 30m, 12h, 7d, 2w
  --last N      how many decisions to list (1-10000)
  --json        one object on stdout:
                {"files", "events", "malformed", "by_event",
                 "stalls_by_kind", "sessions", "last"} ("last" holds the
                 decision events as logged)

Lines that are not a JSON event are counted as malformed, never fatal. The
log is written only when turned on ("event_log": {"enabled": true} in
.claude/stall-watch.jsonc, or STALL_WATCH_LOG_FILE).

Exit codes: 0 done (also when the default log does not exist yet), 1 the
file named by --file is missing or a log cannot be read, 64 usage error.
`;

const DEFAULT_LAST = 10;
const MAX_LAST = 10_000;

/** Runs `log`. Requires `--allow-read`. */
export async function run(args: readonly string[], io: CliIO): Promise<number> {
  const { options } = parseCommandLine("log", args, {
    file: "value",
    session: "value",
    since: "value",
    last: "value",
    json: "flag",
  }, 0);
  const last = typeof options.last === "string"
    ? parseLast(options.last)
    : DEFAULT_LAST;
  let path: string;
  if (typeof options.file === "string") {
    path = resolvePath(io.cwd, options.file);
  } else {
    const { settings, problems } = await loadSettings(io.env, io.cwd);
    for (const line of formatProblems(problems)) {
      io.writeStderr(`stall-watch: config: ${line}\n`);
    }
    path = resolvePath(io.cwd, settings.eventLogPath);
  }
  const sessionId = typeof options.session === "string"
    ? options.session
    : null;
  const since = typeof options.since === "string"
    ? parseSince(options.since, io.now())
    : null;
  const summarizer = new EventLogSummarizer({
    sessionId,
    sinceSeconds: since === null ? null : since / 1000,
    last,
  });
  const files: string[] = [];
  for (const candidate of [`${path}.1`, path]) {
    // The configured log is the project's: no link out of it (item 30).
    const inside = typeof options.file === "string" ? null : io.cwd;
    if (await readLog(candidate, inside, summarizer)) files.push(candidate);
  }
  if (files.length === 0 && typeof options.file === "string") {
    throw new InputError(
      `Cannot read event log "${options.file}": it does not exist`,
    );
  }
  const summary = summarizer.summary();
  if (sessionId !== null && summary.events === 0 && files.length > 0) {
    const others = summarizer.otherSessions().slice(-5).reverse();
    io.writeStderr(
      `stall-watch: note: no event of session "${
        escapeTerminal(sessionId)
      }" in the log${
        others.length > 0
          ? `; the latest sessions in it: ${
            others.map(escapeTerminal).join(", ")
          }`
          : ""
      }\n`,
    );
  }
  if (options.json === true) {
    io.writeStdout(JSON.stringify(logJson(files, summary), null, 2) + "\n");
  } else if (files.length === 0) {
    io.writeStdout(
      `No event log yet at ${path}.\nTurn it on with "event_log": {"enabled": true} in .claude/stall-watch.jsonc, or set STALL_WATCH_LOG_FILE.\n`,
    );
  } else {
    io.writeStdout(renderLog(files, summary, styleFor(io, "stdout")));
  }
  return ExitCode.ok;
}

function parseLast(value: string): number {
  const count = /^\d+$/.test(value) ? Number(value) : NaN;
  if (!Number.isSafeInteger(count) || count < 1 || count > MAX_LAST) {
    throw new UsageError(
      `Bad value for "--last": "${value}" is not a whole number from 1 to ${MAX_LAST}`,
    );
  }
  return count;
}

/** Feeds one log file to the summarizer (`inside`: the start directory); false when missing. */
async function readLog(
  path: string,
  inside: string | null,
  summarizer: EventLogSummarizer,
): Promise<boolean> {
  const file = openRegularFile(
    path,
    "event log",
    inside === null ? {} : { inside },
  );
  if (file === null) return false;
  try {
    for await (const raw of readLinesForward(file)) {
      // An overlong line is no event stall-watch wrote.
      summarizer.addLine(raw.clipped ? "\u0000" : decodeUtf8(raw.head));
    }
    return true;
  } catch (error) {
    throw new InputError(`Cannot read event log "${path}": ${describe(error)}`);
  } finally {
    file.close();
  }
}

function logJson(
  files: readonly string[],
  summary: EventLogSummary,
): Record<string, unknown> {
  return {
    files,
    events: summary.events,
    malformed: summary.malformed,
    by_event: Object.fromEntries(summary.byEvent),
    stalls_by_kind: summary.stallsByKind,
    sessions: summary.sessions.map((s) => ({
      session_id: s.sessionId,
      stalls: s.stalls,
      recoveries: s.recoveries,
      cap_hits: s.capHits,
      cooldown_skips: s.cooldownSkips,
      kill_switch: s.killSwitch,
      healthy_stops: s.healthyStops,
      last_ts: s.lastTs,
    })),
    last: summary.lastDecisions,
  };
}

function renderLog(
  files: readonly string[],
  summary: EventLogSummary,
  style: Style,
): string {
  const out: string[] = [
    `Event log: ${files.map(escapeTerminal).join(" + ")}\n`,
    `  events: ${formatCount(summary.events)}   malformed lines: ${
      formatCount(summary.malformed)
    }\n`,
  ];
  const options = { indent: "  ", paintHeader: style.dim };
  const section = (title: string, body: string) => {
    if (body !== "") out.push(`\n${style.bold(title)}\n${body}`);
  };
  section(
    "Events by type",
    renderTable(
      ["event", "count"],
      summary.byEvent.map(([event, n]) => [event, formatCount(n)]),
      { ...options, rightAligned: [1] },
    ),
  );
  section(
    "Stalled calls by kind",
    renderTable(
      ["kind", "calls"],
      STALL_KINDS.filter((k) => summary.stallsByKind[k] > 0).map((k) => [
        { text: k, paint: style.yellow },
        formatCount(summary.stallsByKind[k]),
      ]),
      { ...options, rightAligned: [1] },
    ),
  );
  section(
    "Sessions",
    renderTable(
      ["session", "stalls", "recoveries", "cap hits", "cooldown", "last event"],
      summary.sessions.map((s) => [
        s.sessionId || "(none)",
        formatCount(s.stalls),
        formatCount(s.recoveries),
        s.capHits > 0
          ? { text: formatCount(s.capHits), paint: style.red }
          : "0",
        formatCount(s.cooldownSkips),
        timeOf(s.lastTs),
      ]),
      { ...options, rightAligned: [1, 2, 3, 4] },
    ),
  );
  section(
    `Last ${formatCount(summary.lastDecisions.length)} decisions`,
    renderTable(
      ["time", "session", "event", "what"],
      summary.lastDecisions.map((record) => [
        timeOf(typeof record.ts === "number" ? record.ts : 0),
        typeof record.session_id === "string" ? record.session_id : "",
        {
          text: String(record.event),
          paint: record.event === "recovery_dispatched"
            ? style.yellow
            : record.event === "retry_cap_hit"
            ? style.red
            : (t: string) => t,
        },
        describeDecision(record),
      ]),
      options,
    ),
  );
  return out.join("");
}

function timeOf(seconds: number): string {
  if (!(seconds > 0)) return "-";
  return new Date(seconds * 1000).toISOString().replace(/\.\d+Z$/, "Z");
}
