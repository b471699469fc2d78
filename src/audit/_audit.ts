/**
 * The audit's scanning stage: every turn of every transcript through the
 * history reader, reduced per file to counts and the turns to list.
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

/** A turn that ended in a stall (1-based lines; signatures sorted by line). */
export interface StalledTurn {
  startLine: number;
  endLine: number;
  signatures: StallSignature[];
  /** It ended on Claude Code's synthetic API-error entry. */
  endedOnApiError: boolean;
}

/** A turn that announced an action and ended without it: the announcing line and sentence (cut). */
export interface AnnouncedTurn {
  startLine: number;
  line: number;
  announcement: string;
}

/** A turn that looks stalled but shows no sign that it ended (`TurnEnding`). */
export interface UnfinishedTurn extends StalledTurn {
  ending: Exclude<TurnEnding, "ended">;
}

/** One transcript, audited. */
export interface FileAudit {
  path: string;
  size: number;
  subagent: boolean;
  turns: number;
  /** Turns too long to judge (over the hook's entries budget). */
  unjudgedTurns: number;
  stalledTurns: StalledTurn[];
  unfinishedTurns: UnfinishedTurn[];
  /** Turns that ended on an API error no nudge can fix: endings, not stalls. */
  unfixableErrorTurns: number;
  /** Of those, the turns that ended on a usage or session limit. */
  usageLimitTurns: number;
  announcedTurns: AnnouncedTurn[];
  /** Why the file could not be read; its counts are then zero. */
  error: string | null;
}

/** Options for {@link auditFiles}: `onProgress` after every read, with the bytes read so far over all files. */
export interface AuditOptions {
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

/** For {@link auditFile}: a read buffer to reuse (`HistoryOptions.buffer`), a callback per read. */
export interface FileAuditOptions {
  buffer?: Uint8Array;
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
    const verdicts = isRolloutFile(handle)
      ? readRolloutVerdicts(handle, options)
      : readHistoryVerdicts(handle, {
        ...options,
        subagent: file.subagent,
        path: file.path,
      });
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
      if (turn.outcome === "not_judged") audit.unjudgedTurns++;
      if (turn.outcome === "stalled") audit.stalledTurns.push(stalled);
      if (turn.outcome === "unfinished") {
        audit.unfinishedTurns.push({
          ...stalled,
          ending: turn.ending as UnfinishedTurn["ending"],
        });
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
