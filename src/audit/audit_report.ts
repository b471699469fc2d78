/**
 * The audit's human report: totals, then aligned tables of stalls by kind,
 * tool, MCP server and session, and what could not be read.
 *
 * @module
 */

import { escapeTerminal } from "../shared/terminal_text.ts";
import { STALL_KINDS } from "../detection/classify.ts";
import type { AuditSummary, UnfinishedStall } from "./audit_summary.ts";
import { formatBytes, formatCount } from "../shared/number_format.ts";
import type { Style } from "../shared/term_style.ts";
import {
  type Cell,
  MAX_CELL_CHARS,
  renderTable,
  type TableOptions,
} from "../shared/text_table.ts";
import { clipMiddle } from "../shared/errors.ts";
import { pluginOf } from "../transcript/tool_name.ts";
import { MAX_HISTORY_TURN_ENTRIES } from "../detection/history_turns.ts";

/** Why a turn counts as unfinished, in the report's words. */
const UNFINISHED_WHY: Readonly<Record<UnfinishedStall["ending"], string>> = {
  no_end: "no end",
  process_died: "process died",
  agent_running: "parent still waiting",
};

/** Rows shown per ranking before "... and N more". */
const TOP_ROWS = 10;

/** Renders the report of `summary` (`run`: where and how long; `style`: stdout's colours). */
export function renderAuditReport(
  summary: AuditSummary,
  run: { root: string; elapsedMs: number },
  style: Style,
): string {
  const out: string[] = [];
  const seconds = run.elapsedMs / 1000;
  const rate = seconds > 0 ? summary.bytes / seconds : 0;
  out.push(
    `Audited ${formatCount(summary.files)} transcript${
      summary.files === 1 ? "" : "s"
    } (${formatBytes(summary.bytes)}) under ${escapeTerminal(run.root)} in ${
      seconds.toFixed(1)
    } s (${formatBytes(rate)}/s)\n`,
  );
  const share = summary.turns > 0
    ? ` (${(100 * summary.stalledTurns / summary.turns).toFixed(1)}%)`
    : "";
  const stalled = `${formatCount(summary.stalledTurns)}${share}`;
  out.push(
    `  turns: ${formatCount(summary.turns)}   stalled turns: ${
      summary.stalledTurns > 0 ? style.red(stalled) : style.green(stalled)
    }   stalled calls: ${formatCount(summary.stalledCalls)}\n`,
  );
  const note = (count: number, what: string, why: string) => {
    if (count > 0) out.push(`  ${what}: ${formatCount(count)} (${why})\n`);
  };
  note(
    summary.apiErrorTurns,
    "stalled turns that ended on an API error",
    'Claude Code wrote "API Error: ..."; the model never answered',
  );
  const limits = summary.usageLimitTurns > 0
    ? `, ${formatCount(summary.usageLimitTurns)} of them on a usage limit`
    : "";
  note(
    summary.unfixableErrorTurns,
    "turns that ended on an API error no nudge can fix",
    `a usage limit, a prompt too long, a bad request, login or billing${limits}; not stalls`,
  );
  note(
    summary.announcedTurns,
    "announced, then stopped",
    "announced_no_call: the last words announced an action that never came; see below",
  );
  note(
    summary.unfinishedTurns,
    "unfinished turns",
    "they look stalled, but nothing shows they ended: not stalls; see below",
  );
  note(
    summary.unjudgedTurns,
    "turns not judged",
    `each holds more than ${
      formatCount(MAX_HISTORY_TURN_ENTRIES)
    } entries, the hook's budget`,
  );
  if (summary.skippedOlder > 0) {
    out.push(
      `  left out by --since: ${formatCount(summary.skippedOlder)}\n`,
    );
  }
  const section = (title: string, body: string) => {
    if (body !== "") out.push(`\n${style.bold(title)}\n${body}`);
  };
  const tableOptions = {
    indent: "  ",
    rightAligned: [1],
    paintHeader: style.dim,
  };
  section(
    "Stalled turns by kind",
    renderTable(
      ["kind", "turns"],
      STALL_KINDS.filter((k) => summary.byKind[k] > 0).map((k) => [
        { text: k, paint: style.yellow },
        formatCount(summary.byKind[k]),
      ]),
      tableOptions,
    ),
  );
  section(
    "Tools that stall most",
    topRows(
      ["tool", "calls"],
      summary.byTool,
      ([name, count]) => [name, formatCount(count)],
      tableOptions,
    ),
  );
  section(
    "MCP servers that stall most",
    topRows(["server", "calls"], summary.byMcpServer, ([server, count]) => {
      const plugin = pluginOf(server);
      return [
        plugin ? `${server} (plugin ${plugin})` : server,
        formatCount(count),
      ];
    }, tableOptions),
  );
  section(
    "Worst sessions",
    topRows(
      ["stalled", "turns", "first stall", "path"],
      summary.sessions,
      (s) => [
        formatCount(s.stalledTurns),
        formatCount(s.turns),
        `line ${s.stalls[0]?.data.line ?? "?"}`,
        s.path,
      ],
      { ...tableOptions, rightAligned: [0, 1] },
    ),
  );
  section(
    "Unfinished turns (no sign they ended: a hang, or a file captured mid-turn)",
    topRows(
      ["turn", "stall", "why", "path"],
      summary.unfinished,
      (u) => [
        `line ${u.turnLine}`,
        `line ${u.data.line ?? "?"}`,
        UNFINISHED_WHY[u.ending],
        u.path,
      ],
      tableOptions,
    ),
  );
  section(
    "Announced, then stopped (announced_no_call; blocked only when configured)",
    topRows(
      ["message", "announcement", "path"],
      summary.announced,
      (a) => [`line ${a.line}`, a.announcement, a.path],
      { ...tableOptions, rightAligned: [] },
    ),
  );
  section(
    `Unreadable (${formatCount(summary.unreadable.length)})`,
    summary.unreadable.slice(0, TOP_ROWS).map((u) =>
      `  ${field(u.path)}: ${field(u.error)}\n`
    ).join("") + more(summary.unreadable.length - TOP_ROWS),
  );
  if (summary.stalledTurns === 0 && summary.files > 0) {
    out.push(`\n${style.green("No stalled turns.")}\n`);
  }
  return out.join("");
}

/** The first {@link TOP_ROWS} of `items` as a table, and how many more. */
function topRows<T>(
  header: string[],
  items: readonly T[],
  row: (item: T) => Cell[],
  options: TableOptions,
): string {
  const shown = items.slice(0, TOP_ROWS);
  return renderTable(header, shown.map(row), options) +
    more(items.length - shown.length);
}

/** A name, path or reason from the audited folder, escaped and capped like a cell. */
function field(text: string): string {
  return clipMiddle(escapeTerminal(text), MAX_CELL_CHARS);
}

function more(hidden: number): string {
  return hidden > 0 ? `  ... and ${formatCount(hidden)} more\n` : "";
}
