/**
 * Whether a subagent returned, by its parent's transcript: a result naming its
 * `agentId` (no launch), or a task notification; parents kept by size, time.
 *
 * @module
 */

import { basename, dirname, join } from "../shared/paths.ts";
import { isPlainObject } from "../shared/plain_object.ts";
import {
  type RawLine,
  readLinesForward,
  syncReader,
} from "../transcript/line_reader.ts";
import { topLevelType } from "../transcript/line_prefilter.ts";
import { openTranscriptOrNull } from "../transcript/tail_scan.ts";

/** `unknown`: no readable parent, or one naming too many agents. */
type AgentReturn = "returned" | "waiting" | "unknown";

/** An agent or session id as Claude Code writes them: no path in it. */
const SAFE_ID = /^[A-Za-z0-9_-]{1,128}$/;

/** How much of a subagent's file is read for the session it belongs to. */
const SESSION_SNIFF_BYTES = 64 * 1024;

/** Launches of a background agent: a result that is not its return. */
const LAUNCH_STATUSES = new Set(["async_launched", "remote_launched"]);

/** The most agents one parent's returns are kept for (a memory bound). */
const MAX_RETURNED_AGENTS = 100_000;

const KEPT_PARENTS = 8;

const decoder = new TextDecoder();

/** The agents one parent file got back, as read at one size and time. */
interface ParentReturns {
  size: number;
  mtime: number;
  agents: Set<string> | null;
}

const kept = new Map<string, ParentReturns>();

/** Whether the subagent of `path` (`<session>/subagents/agent-<id>.jsonl`) returned. Requires `--allow-read`. */
export async function agentReturn(path: string): Promise<AgentReturn> {
  const agentId = /^agent-(.+)\.jsonl$/.exec(basename(path))?.[1];
  if (agentId === undefined || !SAFE_ID.test(agentId)) return "unknown";
  const parent = parentTranscript(path);
  if (parent === null) return "unknown";
  const agents = await returnedAgents(parent);
  if (agents === null) return "unknown";
  return agents.has(agentId) ? "returned" : "waiting";
}

/** The agents the parent at `path` got back, or null when not known. */
async function returnedAgents(path: string): Promise<Set<string> | null> {
  const file = openTranscriptOrNull(path);
  if (file === null) return null;
  try {
    const info = file.statSync();
    const mtime = info.mtime?.getTime() ?? 0;
    const known = kept.get(path);
    if (known && known.size === info.size && known.mtime === mtime) {
      return known.agents;
    }
    const agents = await readReturns(file);
    kept.delete(path);
    kept.set(path, { size: info.size, mtime, agents });
    for (const old of kept.keys()) {
      if (kept.size <= KEPT_PARENTS) break;
      kept.delete(old);
    }
    return agents;
  } catch {
    return null;
  } finally {
    file.close();
  }
}

/** Every agent id a parent's lines show returned; null past the bound. */
async function readReturns(file: Deno.FsFile): Promise<Set<string> | null> {
  const agents = new Set<string>();
  for await (const raw of readLinesForward(syncReader(file))) {
    const text = decoder.decode(raw.head) +
      (raw.clipped ? decoder.decode(raw.tail) : "");
    if (!text.includes("agentId") && !text.includes("<task-id>")) continue;
    if (topLevelType(raw.head) === "progress") continue;
    for (const id of returnsIn(text, raw)) {
      agents.add(id);
      if (agents.size > MAX_RETURNED_AGENTS) return null;
    }
  }
  return agents;
}

/** The agents one parent line shows returned (a clipped line: by its ends). */
function returnsIn(text: string, raw: RawLine): string[] {
  const ids = [...text.matchAll(/<task-id>([A-Za-z0-9_-]{1,128})<\/task-id>/g)]
    .map((m) => m[1] as string);
  if (raw.clipped) {
    const launch = [...LAUNCH_STATUSES].some((s) =>
      text.includes(`"status":"${s}"`)
    );
    if (!launch) {
      for (const m of text.matchAll(/"agentId":"([A-Za-z0-9_-]{1,128})"/g)) {
        ids.push(m[1] as string);
      }
    }
    return ids;
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return ids;
  }
  const result = isPlainObject(value) ? value.toolUseResult : undefined;
  if (
    isPlainObject(result) && typeof result.agentId === "string" &&
    !LAUNCH_STATUSES.has(String(result.status))
  ) ids.push(result.agentId);
  return ids;
}

/** The parent's transcript: `<project>/<session>.jsonl` for `subagents/`, else the session its lines name. */
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
  const file = openTranscriptOrNull(path);
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
