/**
 * What the watchdog benchmarks share: starting one `stall-watch watch`
 * process the way Claude Code does after a tool call, and reading CPU time
 * from /proc (Linux only).
 *
 * @module
 */

import {
  type RunningStallWatch,
  spawnStallWatch,
} from "../support/hook_process.ts";
import {
  postToolUsePayload,
  type SessionTranscript,
} from "../support/watch_session.ts";

/** Clock ticks per second of /proc/<pid>/stat (`getconf CLK_TCK`, 100 on Linux). */
export const CLK_TCK = 100;

/**
 * CPU seconds from /proc/<pid>/stat: the process's own user + system time
 * (all threads), or with `children`, that of its waited-for children.
 */
export async function cpuSeconds(
  pid: number | "self",
  children = false,
): Promise<number> {
  const stat = await Deno.readTextFile(`/proc/${pid}/stat`);
  // Fields after the ")" that closes the command name: utime is the 14th,
  // stime the 15th, cutime and cstime the 16th and 17th.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const at = children ? 13 : 11;
  return (Number(fields[at]) + Number(fields[at + 1])) / CLK_TCK;
}

/** Starts a watcher on `toolUseId`'s PostToolUse payload with these windows. */
export function spawnWatcher(
  dir: string,
  transcript: SessionTranscript,
  toolUseId: string,
  windows: { idleSeconds: number; maxSeconds: number },
  env: Record<string, string> = {},
): Promise<RunningStallWatch> {
  return spawnStallWatch({
    cwd: dir,
    args: ["watch"],
    stdin: postToolUsePayload(transcript, toolUseId, "Bash"),
    env: {
      STALL_WATCH_IDLE_SECONDS: String(windows.idleSeconds),
      STALL_WATCH_WATCH_MAX_SECONDS: String(windows.maxSeconds),
      ...env,
    },
  });
}
