/**
 * The one collector of a run: its decision events, the state and lock
 * files moved aside on the way, and the lines saying what could not be
 * done. A broken log adds a line; it never changes a decision.
 *
 * @module
 */

import type { CliIO } from "../shared/cli_io.ts";
import { describe } from "../shared/errors.ts";
import type { EventName, EventRecord } from "../events/event_log.ts";
import type { StateRescue } from "../guardrails/state.ts";
import type { Settings } from "../settings/settings.ts";
import { reportLine } from "../recovery/report_line.ts";
import type { Outcome } from "./outcome.ts";

/** Who a run's events are about. */
export interface EventSubject {
  sessionId: string;
  /** `Stop`, `SubagentStop`, `PostToolUse`, ... */
  hookEventName: string;
}

/**
 * An event of `subject`'s run: its session and hook event first, then its
 * own facts in `data`'s order.
 *
 * @param ts Seconds since the epoch.
 */
export function eventRecord(
  name: EventName,
  subject: EventSubject,
  ts: number,
  data: Record<string, unknown>,
): EventRecord {
  return {
    event: name,
    sessionId: subject.sessionId,
    ts,
    data: { hook_event: subject.hookEventName, ...data },
  };
}

/** A file moved aside, logged in its place among the events. */
interface Rescue {
  rescue: StateRescue;
  ts: number;
}

/** Collects a run's events and rescues; writes them at {@link flush}. */
export class RunLog {
  #io: Pick<CliIO, "cwd" | "now" | "sleep">;
  #settings: Settings;
  #subject: EventSubject;
  #pending: (EventRecord | Rescue)[] = [];
  #rescued: StateRescue[] = [];
  /** Lines saying the log could not be written. */
  #problems = "";

  constructor(
    io: Pick<CliIO, "cwd" | "now" | "sleep">,
    settings: Settings,
    subject: EventSubject,
  ) {
    this.#io = io;
    this.#settings = settings;
    this.#subject = subject;
  }

  /** An event of this run, stamped now. */
  event(name: EventName, data: Record<string, unknown>): EventRecord {
    return eventRecord(name, this.#subject, this.#io.now() / 1000, data);
  }

  /** Adds events, to be written at the next {@link flush}. */
  log(...events: readonly EventRecord[]): void {
    this.#pending.push(...events);
  }

  /** A state or lock file moved aside (or a session kept elsewhere). */
  rescued(rescue: StateRescue): void {
    this.#rescued.push(rescue);
    this.#pending.push({ rescue, ts: this.#io.now() / 1000 });
  }

  /** Writes the pending events, in order, when the log is on. */
  async flush(): Promise<void> {
    const pending = this.#pending.splice(0);
    if (!this.#settings.eventLogEnabled || pending.length === 0) return;
    const events = this.#rescued.length === 0
      ? pending as EventRecord[]
      : await this.#withRescueEvents(pending);
    try {
      // Loaded lazily: only when the log is on (most stops write no log line).
      const { appendEvents } = await import("../events/event_log.ts");
      await appendEvents(events, {
        cwd: this.#io.cwd,
        path: this.#settings.eventLogPath,
        maxBytes: this.#settings.eventLogMaxBytes,
        sleep: this.#io.sleep,
      });
    } catch (error) {
      this.#problems +=
        reportLine(`event log not written (${describe(error)})`) +
        "\n";
    }
  }

  /**
   * `outcome` once the log is written: on stderr, a line for each file
   * moved aside, then any line saying the log could not be written.
   */
  async finish(outcome: Outcome): Promise<Outcome> {
    await this.flush();
    if (this.#rescued.length === 0 && this.#problems === "") return outcome;
    let lines = "";
    if (this.#rescued.length > 0) {
      // Loaded lazily: only when a state or lock file was moved aside.
      const { rescueLine } = await import("./_rescue_report.ts");
      lines = this.#rescued.map((r) => rescueLine(r) + "\n").join("");
    }
    return { ...outcome, stderr: outcome.stderr + lines + this.#problems };
  }

  async #withRescueEvents(
    pending: readonly (EventRecord | Rescue)[],
  ): Promise<EventRecord[]> {
    // Loaded lazily: only when a state or lock file was moved aside.
    const { rescueEvent } = await import("./_rescue_report.ts");
    return pending.map((item) => {
      if (!("rescue" in item)) return item;
      const [name, data] = rescueEvent(item.rescue);
      return eventRecord(name, this.#subject, item.ts, data);
    });
  }
}
