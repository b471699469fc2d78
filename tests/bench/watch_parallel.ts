/**
 * Measures what one turn of N parallel tool calls costs with the watchdog
 * on: the model calls N tools in one message, the results come back close
 * together, and Claude Code starts one `stall-watch watch` process (under
 * the release permission flags) per result, as it does for PostToolUse.
 * Newest wins, so all but one watcher should leave within a tick.
 *
 * Samples /proc every 20 ms for live watchers (count, summed RSS) and reads
 * the CPU of the waited-for watchers from this process's own cutime/cstime.
 *
 * Linux only. Usage:
 *   deno run -A tests/bench/watch_parallel.ts [calls=50] [idle_seconds=30] [spread_ms=500]
 *
 * `spread_ms` spreads the results (and watcher starts) over that long.
 *
 * @module
 */

import { tempProject } from "../support/hook_process.ts";
import { newId, SessionTranscript } from "../support/watch_session.ts";
import { cpuSeconds, spawnWatcher } from "./watchers.ts";

const calls = Number(Deno.args[0] ?? 50);
const idleSeconds = Number(Deno.args[1] ?? 30);
const spreadMs = Number(Deno.args[2] ?? 500);

/** Resident set size of a process in KiB, or 0 when it is gone. */
async function rssKib(pid: number): Promise<number> {
  try {
    const status = await Deno.readTextFile(`/proc/${pid}/status`);
    return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  } catch {
    return 0;
  }
}

const project = await tempProject();
try {
  const t = new SessionTranscript(project.dir);
  const ids = Array.from({ length: calls }, () => newId("toolu_"));
  const messageId = newId("msg_");
  await t.append(
    t.prompt("Check every service."),
    ...ids.map((id) => t.toolUse(id, "Bash", { command: "curl" }, messageId)),
  );
  const cpuBefore = await cpuSeconds("self", true);
  const started = performance.now();
  const live = new Map<number, Promise<unknown>>();
  const exitedAt: number[] = [];
  let peakLive = 0;
  let peakRss = 0;
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      const pids = [...live.keys()];
      const rss = (await Promise.all(pids.map(rssKib))).reduce(
        (a, b) => a + b,
        0,
      );
      peakLive = Math.max(peakLive, pids.length);
      peakRss = Math.max(peakRss, rss);
      await new Promise((r) => setTimeout(r, 20));
    }
  })();
  for (const [i, id] of ids.entries()) {
    await t.append(t.result(id, `service ${i}: ok`));
    const watcher = await spawnWatcher(project.dir, t, id, {
      idleSeconds,
      maxSeconds: idleSeconds + 60,
    });
    live.set(
      watcher.pid,
      watcher.finished.then(() => {
        live.delete(watcher.pid);
        exitedAt.push(performance.now() - started);
      }),
    );
    if (spreadMs > 0) {
      await new Promise((r) => setTimeout(r, spreadMs / calls));
    }
  }
  // Wait until one watcher is left (the newest), then answer and let it go.
  while (live.size > 1) await new Promise((r) => setTimeout(r, 20));
  const oneLeftAt = performance.now() - started;
  await t.append(t.text("All services are up."));
  await Promise.all(live.values());
  sampling = false;
  await sampler;
  const cpu = (await cpuSeconds("self", true)) - cpuBefore;
  console.log(
    [
      `${calls} parallel calls, results over ${spreadMs} ms, idle ${idleSeconds} s:`,
      `  peak live watchers: ${peakLive}, peak summed RSS: ${
        (peakRss / 1024).toFixed(0)
      } MiB`,
      `  one watcher left after ${(oneLeftAt / 1000).toFixed(2)} s`,
      `  CPU of all ${calls} watchers: ${cpu.toFixed(2)} s (${
        (1000 * cpu / calls).toFixed(0)
      } ms each)`,
    ].join("\n"),
  );
} finally {
  await project.cleanup();
}
