/**
 * The audit's scanning stage: every turn of every transcript through the
 * history reader and the shared classifier, reduced per file to the turn
 * count and the stalled, unfinished and announced turns.
 *
 * @module
 */

import type { StallSignature } from "../detection/classify.ts";
import { describe } from "../shared/errors.ts";
import { openRegularFile } from "../shared/regular_file.ts";
import {
  countsAsAnnounced,
  HISTORY_READER_OPTIONS,
  readHistoryVerdicts,
  type TurnEnding,
} from "../detection/history_turns.ts";
import {
  sniffTranscript,
  type TranscriptFile,
} from "../transcript/transcript_files.ts";
import { isRolloutFile } from "../codex/rollout_files.ts";
import { readRolloutVerdicts } from "./codex_history.ts";

/** A turn that ended in a stall. */
export interface StalledTurn {
  /** 1-based line where the turn starts. */
  startLine: number;
  /** 1-based line of its last entry. */
  endLine: number;
  /** Its signatures, sorted by line. */
  signatures: StallSignature[];
  /** It ended on Claude Code's synthetic API-error entry. */
  endedOnApiError: boolean;
}

/** A turn that announced an action of the model's own and ended without it. */
export interface AnnouncedTurn {
  /** 1-based line where the turn starts. */
  startLine: number;
  /** 1-based line of the announcing message. */
  line: number;
  /** The announcing sentence, as written (cut). */
  announcement: string;
}

/**
 * A turn that looks stalled but shows no sign that it ended (see
 * `TurnEnding`): reported apart from stalls.
 */
export interface UnfinishedTurn extends StalledTurn {
  ending: Exclude<TurnEnding, "ended">;
}

/** One transcript, audited. */
export interface FileAudit {
  path: string;
  size: number;
  subagent: boolean;
  /** Turns scanned. */
  turns: number;
  /** Turns too long to judge (over the hook's entries budget). */
  unjudgedTurns: number;
  stalledTurns: StalledTurn[];
  /** Turns that look stalled but show no sign that they ended. */
  unfinishedTurns: UnfinishedTurn[];
  /** Turns that ended on an API error no nudge can fix: endings, not stalls. */
  unfixableErrorTurns: number;
  /** Of those, the turns that ended on a usage or session limit. */
  usageLimitTurns: number;
  /** Turns whose last words announced an action they ended without. */
  announcedTurns: AnnouncedTurn[];
  /** Why the file could not be read; its counts are then zero. */
  error: string | null;
}

/** Options for {@link auditFiles}. */
export interface AuditOptions {
  /** Called after every read with the bytes read so far over all files. */
  onProgress?: (bytesDone: number, path: string) => void;
}

/** Audits files in order; an unreadable one is reported in {@link FileAudit.error}. Requires `--allow-read`. */
export async function auditFiles(
  files: readonly TranscriptFile[],
  options: AuditOptions = {},
): Promise<FileAudit[]> {
  const buffer = new Uint8Array(HISTORY_READER_OPTIONS.chunkBytes);
  const audits: FileAudit[] = [];
  let before = 0;
  for (const file of files) {
    let done = 0;
    const onRead = options.onProgress
      ? (bytes: number) => {
        done += bytes;
        options.onProgress?.(before + done, file.path);
      }
      : undefined;
    audits.push(
      await auditFile(file, { buffer, ...(onRead ? { onRead } : {}) }),
    );
    before += file.size;
  }
  return audits;
}

/** Reuse and progress hooks for {@link auditFile}. */
export interface FileAuditOptions {
  /** A read buffer to reuse (see `HistoryOptions.buffer`). */
  buffer?: Uint8Array;
  /** Called with the bytes of each read. */
  onRead?: (bytes: number) => void;
}

/** Audits one file. Requires `--allow-read`. */
export async function auditFile(
  file: TranscriptFile,
  options: FileAuditOptions = {},
): Promise<FileAudit> {
  const audit: FileAudit = {
    path: file.path,
    size: file.size,
    subagent: file.subagent,
    ...noTurns(),
    error: null,
  };
  let handle: Deno.FsFile | null;
  try {
    // Listed as a regular file, but it may have been swapped since.
    handle = openRegularFile(file.path, "transcript");
  } catch (error) {
    return { ...audit, error: describe(error) };
  }
  if (handle === null) return { ...audit, error: "it no longer exists" };
  try {
    const notTranscript = sniffTranscript(handle);
    if (notTranscript !== null) {
      return { ...audit, error: `not a transcript: ${notTranscript}` };
    }
    const history = { ...options, subagent: file.subagent, path: file.path };
    // A Codex rollout (its first line is the session's session_meta).
    const verdicts = isRolloutFile(handle)
      ? readRolloutVerdicts(handle, options)
      : readHistoryVerdicts(handle, history);
    for await (const turn of verdicts) {
      audit.turns++;
      const { verdict } = turn;
      if (verdict.endedOnUnfixableError) audit.unfixableErrorTurns++;
      if (verdict.endedOnUsageLimit) audit.usageLimitTurns++;
      if (turn.announced && countsAsAnnounced(turn)) {
        audit.announcedTurns.push({
          startLine: turn.startLine,
          line: turn.announced.line,
          announcement: turn.announced.announcement,
        });
      }
      const stalled: StalledTurn = {
        startLine: turn.startLine,
        endLine: turn.endLine,
        signatures: verdict.signatures,
        endedOnApiError: verdict.endedOnApiError === true,
      };
      switch (turn.outcome) {
        case "not_judged":
          audit.unjudgedTurns++;
          break;
        case "stalled":
          audit.stalledTurns.push(stalled);
          break;
        case "unfinished":
          audit.unfinishedTurns.push({
            ...stalled,
            ending: turn.ending as UnfinishedTurn["ending"],
          });
          break;
        case "healthy":
          break;
      }
    }
    return audit;
  } catch (error) {
    // A file that fails part way counts nothing of what was read.
    return { ...audit, ...noTurns(), error: describe(error) };
  } finally {
    handle.close();
  }
}

/** The counts of a file with no turns read. */
function noTurns() {
  return {
    turns: 0,
    unjudgedTurns: 0,
    stalledTurns: [] as StalledTurn[],
    unfinishedTurns: [] as UnfinishedTurn[],
    unfixableErrorTurns: 0,
    usageLimitTurns: 0,
    announcedTurns: [] as AnnouncedTurn[],
  };
}
