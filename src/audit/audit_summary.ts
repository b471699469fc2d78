/**
 * The audit's numbers: per-file results folded into totals, stalls by kind,
 * tool and MCP server, and the sessions that stall most. Pure.
 *
 * @module
 */

import { basename, dirname } from "../shared/paths.ts";
import {
  signatureData,
  STALL_KINDS,
  type StallKind,
} from "../detection/classify.ts";
import type { AnnouncedTurn, FileAudit, UnfinishedTurn } from "./_audit.ts";
import { parseMcpToolName } from "../transcript/tool_name.ts";
import type { UnreadablePath } from "../transcript/transcript_files.ts";

/** One transcript with at least one stalled turn. */
interface SessionStalls {
  path: string;
  /** From the file's location: the main file's name, or a subagent's folder's. */
  sessionId: string | null;
  /** For a subagent transcript, the id in `agent-<id>.jsonl`. */
  agentId: string | null;
  turns: number;
  stalledTurns: number;
  apiErrorTurns: number;
  byKind: Record<StallKind, number>;
  /** Every stalled call: the turn's start line and the signature. */
  stalls: { turnLine: number; data: Record<string, unknown> }[];
}

/** A turn that looks stalled but shows no sign that it ended. */
export interface UnfinishedStall {
  path: string;
  turnLine: number;
  ending: UnfinishedTurn["ending"];
  /** Its first signature, as logged. */
  data: Record<string, unknown>;
}

/**
 * Everything the audit reports, in the order of `audit --json` (the turn
 * counts as `FileAudit`'s, summed; the lists in path order).
 */
export interface AuditSummary {
  files: number;
  bytes: number;
  turns: number;
  unjudgedTurns: number;
  stalledTurns: number;
  /** Stalled turns that ended on Claude Code's synthetic API-error entry. */
  apiErrorTurns: number;
  unfixableErrorTurns: number;
  usageLimitTurns: number;
  unfinishedTurns: number;
  announcedTurns: number;
  /** Stalled calls (signatures); a turn may hold several. */
  stalledCalls: number;
  /** Stalled turns showing each kind (a turn counts once per kind). */
  byKind: Record<StallKind, number>;
  /** Stalled calls per tool name, most first. */
  byTool: [string, number][];
  /** Stalled calls per MCP server, most first. */
  byMcpServer: [string, number][];
  /** Transcripts with stalls, worst first. */
  sessions: SessionStalls[];
  unfinished: UnfinishedStall[];
  announced: (AnnouncedTurn & { path: string })[];
  unreadable: UnreadablePath[];
  /** Transcripts left out by `--since`. */
  skippedOlder: number;
}

/** Folds per-file results (in path order) and the unreadable paths into the audit summary. */
export function summarizeAudit(
  audits: readonly FileAudit[],
  walkUnreadable: readonly UnreadablePath[] = [],
  skippedOlder = 0,
): AuditSummary {
  const summary: AuditSummary = {
    files: 0,
    bytes: 0,
    turns: 0,
    unjudgedTurns: 0,
    stalledTurns: 0,
    apiErrorTurns: 0,
    unfixableErrorTurns: 0,
    usageLimitTurns: 0,
    unfinishedTurns: 0,
    announcedTurns: 0,
    stalledCalls: 0,
    byKind: zeroKinds(),
    byTool: [],
    byMcpServer: [],
    sessions: [],
    unfinished: [],
    announced: [],
    unreadable: [...walkUnreadable],
    skippedOlder,
  };
  const byTool = new Map<string, number>();
  const byServer = new Map<string, number>();
  for (const audit of audits) {
    if (audit.error !== null) {
      summary.unreadable.push({ path: audit.path, error: audit.error });
      continue;
    }
    summary.files++;
    summary.bytes += audit.size;
    summary.turns += audit.turns;
    summary.unjudgedTurns += audit.unjudgedTurns;
    summary.unfixableErrorTurns += audit.unfixableErrorTurns;
    summary.usageLimitTurns += audit.usageLimitTurns;
    for (const turn of audit.announcedTurns) {
      summary.announcedTurns++;
      summary.announced.push({ path: audit.path, ...turn });
    }
    for (const turn of audit.unfinishedTurns) {
      summary.unfinishedTurns++;
      const first = turn.signatures[0];
      summary.unfinished.push({
        path: audit.path,
        turnLine: turn.startLine,
        ending: turn.ending,
        data: first ? signatureData(first) : {},
      });
    }
    if (audit.stalledTurns.length === 0) continue;
    const session: SessionStalls = {
      path: audit.path,
      ...sessionOf(audit.path, audit.subagent),
      turns: audit.turns,
      stalledTurns: audit.stalledTurns.length,
      apiErrorTurns: 0,
      byKind: zeroKinds(),
      stalls: [],
    };
    for (const turn of audit.stalledTurns) {
      summary.stalledTurns++;
      if (turn.endedOnApiError) {
        summary.apiErrorTurns++;
        session.apiErrorTurns++;
      }
      for (const kind of new Set(turn.signatures.map((s) => s.kind))) {
        summary.byKind[kind]++;
        session.byKind[kind]++;
      }
      for (const signature of turn.signatures) {
        summary.stalledCalls++;
        const tool = signature.toolName || "(unknown tool)";
        byTool.set(tool, (byTool.get(tool) ?? 0) + 1);
        const server = parseMcpToolName(signature.toolName)?.server;
        if (server) byServer.set(server, (byServer.get(server) ?? 0) + 1);
        session.stalls.push({
          turnLine: turn.startLine,
          data: signatureData(signature),
        });
      }
    }
    summary.sessions.push(session);
  }
  summary.byTool = ranked(byTool);
  summary.byMcpServer = ranked(byServer);
  summary.sessions.sort((a, b) =>
    b.stalledTurns - a.stalledTurns || b.stalls.length - a.stalls.length ||
    compare(a.path, b.path)
  );
  return summary;
}

/** The `audit --json` object: snake_case keys, counts as objects most first. */
export function auditJson(
  summary: AuditSummary,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    ...extra,
    ...snakeKeys(summary),
    by_tool: Object.fromEntries(summary.byTool),
    by_mcp_server: Object.fromEntries(summary.byMcpServer),
    sessions: summary.sessions.map((s) => ({
      ...snakeKeys(s),
      stalls: s.stalls.map(({ turnLine, data }) => ({
        turn_line: turnLine,
        ...data,
      })),
    })),
    unfinished: summary.unfinished.map(({ data, ...u }) => ({
      ...snakeKeys(u),
      ...data,
    })),
    announced: summary.announced.map((a) => ({
      path: a.path,
      turn_line: a.startLine,
      line: a.line,
      announcement: a.announcement,
    })),
  };
}

/** The object's own keys from camelCase to snake_case, in order; values as they are. */
function snakeKeys(object: object): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(object).map((
      [key, value],
    ) => [key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`), value]),
  );
}

function sessionOf(
  path: string,
  subagent: boolean,
): { sessionId: string | null; agentId: string | null } {
  const name = basename(path, ".jsonl");
  if (!subagent) return { sessionId: name, agentId: null };
  const agentId = name.slice("agent-".length);
  const parent = dirname(path);
  // <project>/<session>/subagents/agent-<id>.jsonl; older files sit next to
  // the main transcript and do not name their session.
  const sessionId = basename(parent) === "subagents"
    ? basename(dirname(parent))
    : null;
  return { sessionId, agentId };
}

function zeroKinds(): Record<StallKind, number> {
  return Object.fromEntries(STALL_KINDS.map((k) => [k, 0])) as Record<
    StallKind,
    number
  >;
}

function ranked(counts: Map<string, number>): [string, number][] {
  return [...counts].sort((a, b) => b[1] - a[1] || compare(a[0], b[0]));
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
