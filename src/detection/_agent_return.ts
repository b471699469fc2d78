/**
 * Whether a subagent returned to its parent, read from the parent's own
 * transcript: a subagent's file holds no record of its end, its parent's
 * does. A foreground subagent returns as the result of the parent's call
 * (`toolUseResult` naming its `agentId`, with a status other than the
 * launch of a background agent); a background one as Claude Code's task
 * notification (`<task-id><id></task-id>`), written each time it stops.
 * When the parent's file shows neither, the parent was still waiting for
 * it when the file ends: the subagent had not finished.
 *
 * @module
 */

import { basename, dirname, join } from "../shared/paths.ts";
import { isPlainObject } from "../shared/plain_object.ts";
import { readLinesForward, syncReader } from "../transcript/line_reader.ts";
import { topLevelType } from "../transcript/line_prefilter.ts";
import { openTranscript } from "../transcript/tail_scan.ts";

/**
 * What the parent's transcript says of a subagent: it `returned`, the
 * parent was still `waiting` for it when the file ends, or `unknown` (no
 * parent file found, or it cannot be read).
 */
export type AgentReturn = "returned" | "waiting" | "unknown";

/** An agent or session id as Claude Code writes them: no path in it. */
const SAFE_ID = /^[A-Za-z0-9_-]{1,128}$/;

/** How much of a subagent's file is read for the session it belongs to. */
const SESSION_SNIFF_BYTES = 64 * 1024;

/** Launches of a background agent: a result that is not its return. */
const LAUNCH_STATUSES = new Set(["async_launched", "remote_launched"]);

const decoder = new TextDecoder();

/**
 * Whether the subagent of the transcript at `path` returned to its parent.
 * Requires `--allow-read`; reads the parent's file once, whole.
 *
 * @param path A subagent transcript: `<session>/subagents/agent-<id>.jsonl`,
 * or `agent-<id>.jsonl` next to its session's file (older releases).
 */
export async function agentReturn(path: string): Promise<AgentReturn> {
  const agentId = /^agent-(.+)\.jsonl$/.exec(basename(path))?.[1];
  if (agentId === undefined || !SAFE_ID.test(agentId)) return "unknown";
  const parent = parentTranscript(path);
  if (parent === null) return "unknown";
  let file: Deno.FsFile | null;
  try {
    file = openTranscript(parent);
  } catch {
    return "unknown";
  }
  if (file === null) return "unknown";
  try {
    for await (const raw of readLinesForward(syncReader(file))) {
      const text = decoder.decode(raw.head) +
        (raw.clipped ? decoder.decode(raw.tail) : "");
      if (!text.includes(agentId) || topLevelType(raw.head) === "progress") {
        continue;
      }
      if (returnsAgent(text, raw.clipped, agentId)) {
        return "returned";
      }
    }
    return "waiting";
  } catch {
    return "unknown";
  } finally {
    file.close();
  }
}

/**
 * The parent's transcript: `<project>/<session>.jsonl` for a file in
 * `<project>/<session>/subagents/`; for one next to it, the session its
 * own lines name. Null when neither can be told.
 */
function parentTranscript(path: string): string | null {
  const folder = dirname(path);
  if (basename(folder) === "subagents") {
    const sessionFolder = dirname(folder);
    return join(dirname(sessionFolder), `${basename(sessionFolder)}.jsonl`);
  }
  const session = sessionOf(path);
  return session === null ? null : join(folder, `${session}.jsonl`);
}

/** The `sessionId` the first lines of the file at `path` name, if safe. */
function sessionOf(path: string): string | null {
  let file: Deno.FsFile | null;
  try {
    file = openTranscript(path);
  } catch {
    return null;
  }
  if (file === null) return null;
  try {
    const bytes = new Uint8Array(SESSION_SNIFF_BYTES);
    const read = file.readSync(bytes) ?? 0;
    const id = /"sessionId"\s*:\s*"([^"]*)"/.exec(
      decoder.decode(bytes.subarray(0, read)),
    )?.[1];
    return id !== undefined && SAFE_ID.test(id) ? id : null;
  } catch {
    return null;
  } finally {
    file.close();
  }
}

/**
 * Whether one line of the parent that names the subagent (its text, or the
 * ends of a line too long to read whole) is its return: a task
 * notification naming it, or a result naming it that is not a background
 * launch.
 */
function returnsAgent(
  text: string,
  clipped: boolean,
  agentId: string,
): boolean {
  if (text.includes(`<task-id>${agentId}</task-id>`)) return true;
  const launch = [...LAUNCH_STATUSES].some((s) =>
    text.includes(`"status":"${s}"`)
  );
  // Of a line too long to read whole only its ends are known.
  if (clipped) return text.includes(`"agentId":"${agentId}"`) && !launch;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return false;
  }
  if (!isPlainObject(value)) return false;
  const result = value.toolUseResult;
  return isPlainObject(result) && result.agentId === agentId &&
    !LAUNCH_STATUSES.has(String(result.status));
}
