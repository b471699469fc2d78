/**
 * The one collector of a run: its events, the state files moved aside and the
 * lines saying so. A broken log adds a line, never changes a decision.
 *
 * @module
 */

import type { CliIO } from "../shared/cli_io.ts";
import { describe } from "../shared/errors.ts";
import type { EventName, EventRecord } from "../events/event_log.ts";
import type { StateRescue } from "../guardrails/state.ts";
import type { Settings } from "../config/settings.ts";
import { reportLine } from "../recovery/report_line.ts";
import { escapeTerminal } from "../shared/terminal_text.ts";
import type { Outcome } from "./outcome.ts";

/** Who a run's events are about. */
export interface EventSubject {
  sessionId: string;
  hookEventName: string;
}

/** An event of `subject`'s run at `ts` (seconds): its session and hook event first, then `data`. */
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

/** Collects a run's events and rescues; writes them at {@link flush}. */
export class RunLog {
  #io: Pick<CliIO, "cwd" | "now" | "sleep">;
  #settings: Settings;
  #subject: EventSubject;
  #clientDir: string;
  #pending: EventRecord[] = [];
  #rescues = "";
  #problems = "";

  /** @param clientDir The client's folder the log lies in (`.claude`, `.codex`). */
  constructor(
    io: Pick<CliIO, "cwd" | "now" | "sleep">,
    settings: Settings,
    subject: EventSubject,
    clientDir: string,
  ) {
    this.#io = io;
    this.#settings = settings;
    this.#subject = subject;
    this.#clientDir = clientDir;
  }

  /** An event of this run, stamped now. */
  event(name: EventName, data: Record<string, unknown>): EventRecord {
    return eventRecord(name, this.#subject, this.#io.now() / 1000, data);
  }

  /** Adds events, to be written at the next {@link flush}. */
  log(...events: readonly EventRecord[]): void {
    this.#pending.push(...events);
  }

  /** A state or lock file moved aside, or a session kept elsewhere: its event and line. */
  rescued(rescue: StateRescue): void {
    const { file, path, reason } = rescue;
    if ("keptIn" in rescue) {
      this.log(this.event("state_relocated", {
        file,
        path,
        kept_in: rescue.keptIn,
        reason,
      }));
      this.#rescues += reportLine(
        `session state file "${escapeTerminal(path)}" is someone else's ` +
          `(${reason}); left it untouched and kept this session's retry ` +
          `budget in "${escapeTerminal(rescue.keptIn)}"`,
      ) + "\n";
      return;
    }
    this.log(this.event("state_quarantined", {
      file,
      path,
      moved_to: rescue.movedTo,
      reason,
    }));
    const fresh = file === "state"
      ? "started a fresh retry budget"
      : "took a fresh lock";
    this.#rescues += reportLine(
      `session ${file} file "${escapeTerminal(path)}" could not be used ` +
        `(${reason}); moved it aside to ${
          escapeTerminal(rescue.movedTo)
        } and ${fresh}`,
    ) + "\n";
  }

  /** Writes the pending events, in order, when the log is on. */
  async flush(): Promise<void> {
    const events = this.#pending.splice(0);
    if (!this.#settings.eventLogEnabled || events.length === 0) return;
    try {
      // Loaded lazily: only when the log is on (most stops write no log line).
      const { appendEvents } = await import("../events/event_log.ts");
      await appendEvents(events, {
        cwd: this.#io.cwd,
        path: this.#settings.eventLogPath,
        clientDir: this.#clientDir,
        maxBytes: this.#settings.eventLogMaxBytes,
        sleep: this.#io.sleep,
      });
    } catch (error) {
      this.#problems +=
        reportLine(`event log not written (${describe(error)})`) + "\n";
    }
  }

  /** `outcome` once the log is written, with a stderr line per rescue or failure. */
  async finish(outcome: Outcome): Promise<Outcome> {
    await this.flush();
    const lines = this.#rescues + this.#problems;
    return lines === ""
      ? outcome
      : { ...outcome, stderr: outcome.stderr + lines };
  }
}
