/**
 * Summarises event-log lines: events by type, stalls by kind, what was done
 * per session, the last decisions. Pure; malformed lines are counted.
 *
 * @module
 */

import { STALL_KINDS, type StallKind } from "../detection/classify.ts";
import { isPlainObject } from "../shared/plain_object.ts";

/** One session's activity in the log: its events counted (see `SESSION_COUNTS`). */
interface SessionActivity {
  sessionId: string;
  stalls: number;
  recoveries: number;
  capHits: number;
  cooldownSkips: number;
  killSwitch: number;
  healthyStops: number;
  /** Seconds since the epoch of its newest event (0 when none had a time). */
  lastTs: number;
}

/** The summary of a log. */
export interface EventLogSummary {
  /** Events read (after the session filter). */
  events: number;
  /** Non-blank lines that are not a JSON object with an `event` name. */
  malformed: number;
  /** Events per name, most first. */
  byEvent: [string, number][];
  /** Stalled calls per kind, from `stall_detected` signatures. */
  stallsByKind: Record<StallKind, number>;
  /** Sessions, most recently active first. */
  sessions: SessionActivity[];
  /** The last decisions, oldest first, as logged. */
  lastDecisions: Record<string, unknown>[];
}

/** Events that record what a door decided. */
const DECISION_EVENTS: ReadonlySet<string> = new Set(
  "healthy_stop announced_stop budget_exhausted state_unavailable recovery_dispatched retry_cap_hit cooldown_skipped kill_switch_active watch_finished"
    .split(" "),
);

/** The session count each event adds to (an announced stop is allowed). */
const SESSION_COUNTS: ReadonlyMap<string, Count> = new Map([
  ["stall_detected", "stalls"],
  ["recovery_dispatched", "recoveries"],
  ["retry_cap_hit", "capHits"],
  ["cooldown_skipped", "cooldownSkips"],
  ["kill_switch_active", "killSwitch"],
  ["healthy_stop", "healthyStops"],
  ["announced_stop", "healthyStops"],
]);

type Count = Exclude<keyof SessionActivity, "sessionId" | "lastTs">;

/** Which events to keep (one session's, since a time in seconds), and how many decisions. */
interface SummaryOptions {
  sessionId: string | null;
  sinceSeconds?: number | null;
  last: number;
}

const MAX_OTHER_SESSIONS = 1000;

/** Folds log lines, oldest first, into an {@link EventLogSummary}. */
export class EventLogSummarizer {
  #options: SummaryOptions;
  #events = 0;
  #malformed = 0;
  #byEvent = new Map<string, number>();
  #byKind = Object.fromEntries(STALL_KINDS.map((k) => [k, 0])) as Record<
    StallKind,
    number
  >;
  #sessions = new Map<string, SessionActivity>();
  #last: Record<string, unknown>[] = [];
  #otherSessions = new Set<string>();

  constructor(options: SummaryOptions) {
    this.#options = options;
  }

  /** Adds one line of the log (without its newline). */
  addLine(text: string): void {
    if (text.trim() === "") return;
    let record: unknown;
    try {
      record = JSON.parse(text);
    } catch {
      this.#malformed++;
      return;
    }
    if (!isPlainObject(record) || typeof record.event !== "string") {
      this.#malformed++;
      return;
    }
    const sessionId = typeof record.session_id === "string"
      ? record.session_id
      : "";
    const since = this.#options.sinceSeconds ?? null;
    if (
      since !== null && !(typeof record.ts === "number" && record.ts >= since)
    ) {
      return;
    }
    const wanted = this.#options.sessionId;
    if (wanted !== null && sessionId !== wanted) {
      if (this.#otherSessions.size < MAX_OTHER_SESSIONS) {
        this.#otherSessions.add(sessionId);
      }
      return;
    }
    this.#add(record, record.event, sessionId);
  }

  /** With a session filter: the other sessions seen (at most 1000, in log order). */
  otherSessions(): string[] {
    return [...this.#otherSessions];
  }

  /** The summary of the lines added so far. */
  summary(): EventLogSummary {
    return {
      events: this.#events,
      malformed: this.#malformed,
      byEvent: [...this.#byEvent].sort((a, b) =>
        b[1] - a[1] || (a[0] < b[0] ? -1 : 1)
      ),
      stallsByKind: { ...this.#byKind },
      sessions: [...this.#sessions.values()].sort((a, b) =>
        b.lastTs - a.lastTs || (a.sessionId < b.sessionId ? -1 : 1)
      ),
      lastDecisions: [...this.#last],
    };
  }

  #add(record: Record<string, unknown>, event: string, sessionId: string) {
    this.#events++;
    this.#byEvent.set(event, (this.#byEvent.get(event) ?? 0) + 1);
    const ts = typeof record.ts === "number" && Number.isFinite(record.ts)
      ? record.ts
      : 0;
    let session = this.#sessions.get(sessionId);
    if (!session) {
      session = {
        sessionId,
        stalls: 0,
        recoveries: 0,
        capHits: 0,
        cooldownSkips: 0,
        killSwitch: 0,
        healthyStops: 0,
        lastTs: 0,
      };
      this.#sessions.set(sessionId, session);
    }
    session.lastTs = Math.max(session.lastTs, ts);
    const count = SESSION_COUNTS.get(event);
    if (count !== undefined) session[count]++;
    if (event === "stall_detected") {
      for (const kind of signatureKinds(record.signatures)) {
        this.#byKind[kind]++;
      }
    } else if (event === "announced_stop") {
      this.#byKind.announced_no_call++; // the kind it shows, never blocked
    }
    if (DECISION_EVENTS.has(event)) {
      this.#last.push(record);
      if (this.#last.length > this.#options.last) this.#last.shift();
    }
  }
}

function signatureKinds(value: unknown): StallKind[] {
  if (!Array.isArray(value)) return [];
  const kinds: StallKind[] = [];
  for (const signature of value) {
    const kind = isPlainObject(signature) ? signature.kind : undefined;
    if ((STALL_KINDS as readonly unknown[]).includes(kind)) {
      kinds.push(kind as StallKind);
    }
  }
  return kinds;
}

/**
 * One line saying what a decision event means, e.g.
 * `nudged pending_tool_use Read toolu_01 line 6 (1/3)`.
 */
export function describeDecision(record: Record<string, unknown>): string {
  const text = (value: unknown) => typeof value === "string" ? value : "";
  switch (record.event) {
    case "healthy_stop":
      return text(record.reason) || "healthy";
    case "announced_stop":
      return `allowed, logged only: announced_no_call line ${
        typeof record.line === "number" ? record.line : "?"
      }: ${text(record.announcement)}`;
    case "budget_exhausted":
      return `allowed unjudged: ${text(record.reason) || "a budget ran out"}`;
    case "state_unavailable":
      return `allowed, not nudged: no session state (${
        text(record.reason) || "unknown reason"
      })`;
    case "recovery_dispatched": {
      const retries = isPlainObject(record.retries) ? record.retries : {};
      const calls = listOf(record.signatures).map((s) => {
        const count = retries[text(s.tool_use_id)];
        return `${callText(s)}${
          typeof count === "number" ? ` (${count}/${record.max_retries})` : ""
        }`;
      });
      return `nudged ${calls.join("; ") || "(no calls listed)"}`;
    }
    case "retry_cap_hit":
      return `${
        record.scope === "turn" ? "turn " : ""
      }cap ${record.max_retries} reached for ${
        listOf(record.capped).map(callText).join("; ") || "(no calls listed)"
      }`;
    case "cooldown_skipped":
      return `cooldown: ${seconds(record.remaining_seconds)} of ${
        seconds(record.cooldown_seconds)
      } left`;
    case "kill_switch_active":
      return `kill switch on (${text(record.source) || "unknown source"})`;
    case "watch_finished":
      return [text(record.outcome), text(record.reason)].filter(Boolean)
        .join(": ") || "watch finished";
    default:
      return "";
  }
}

function seconds(value: unknown): string {
  return typeof value === "number" ? `${Math.ceil(value)}s` : "?s";
}

function listOf(value: unknown): Record<string, unknown>[] {
  return Array.isArray(value) ? value.filter(isPlainObject) : [];
}

function callText(call: Record<string, unknown>): string {
  const parts = [call.kind, call.tool_name, call.tool_use_id]
    .filter((p) => typeof p === "string" && p !== "");
  if (typeof call.line === "number" && call.line > 0) {
    parts.push(`line ${call.line}`);
  }
  return parts.join(" ");
}
