/**
 * Measures what an idle watchdog costs: one `stall-watch watch` process (under
 * the release permission flags) waits on an answered tool result that nobody
 * follows up, with an idle window longer than the measurement, and its CPU
 * time (user + system, all threads, from /proc/<pid>/stat) is sampled after
 * its first look at the transcript and again at the end of the window.
 *
 * Linux only (reads /proc). Usage:
 *   deno run -A tests/bench/watch_idle_cpu.ts [window_seconds=30] [idle_seconds=90] [turn_mib=0] [grow_ms=0]
 *
 * `idle_seconds` sets the tick (a tenth of it, at most one second); the
 * window must be shorter than it so the watcher stays idle throughout.
 * `turn_mib` pads the watched turn with that many MiB of answered tool
 * calls before the watched one; `grow_ms` appends a metadata line that
 * often during the window (the turn grows, nothing answers the result):
 * `... 10 90 60 500` is the growing 60 MiB turn of the README.
 *
 * @module
 */

import { join } from "node:path";
import { tempProject } from "../support/hook_process.ts";
import {
  newId,
  SessionTranscript,
  waitUntil,
} from "../support/watch_session.ts";
import { CLK_TCK, cpuSeconds, spawnWatcher } from "./watchers.ts";

const windowSeconds = Number(Deno.args[0] ?? 30);
const idleSeconds = Number(Deno.args[1] ?? 90);
const turnMib = Number(Deno.args[2] ?? 0);
const growMs = Number(Deno.args[3] ?? 0);
if (!(windowSeconds > 0 && idleSeconds > windowSeconds)) {
  console.error(
    "usage: watch_idle_cpu.ts [window_seconds] [idle_seconds > window]",
  );
  Deno.exit(64);
}

const project = await tempProject();
try {
  const t = new SessionTranscript(project.dir);
  const id = newId("toolu_");
  await t.append(t.prompt("Run the tests."));
  await padTurn(t, turnMib * 1024 * 1024);
  await t.append(
    t.toolUse(id, "Bash", { command: "npm test" }),
    t.result(id, "Tests  48 passed (48)"),
  );
  const log = ".claude/stall_watch/events.jsonl";
  const watcher = await spawnWatcher(project.dir, t, id, {
    idleSeconds,
    maxSeconds: windowSeconds + 60,
  }, { STALL_WATCH_LOG_FILE: log });
  await waitUntil(async () => {
    try {
      return (await Deno.readTextFile(join(project.dir, log))).includes(
        '"watch_started"',
      );
    } catch {
      return false;
    }
  }, "the watcher to start");
  const startup = await cpuSeconds(watcher.pid);
  const started = performance.now();
  let grown = 0;
  const grower = growMs > 0
    ? setInterval(() => {
      grown++;
      t.append(t.attachment());
    }, growMs)
    : undefined;
  await new Promise((resolve) => setTimeout(resolve, windowSeconds * 1000));
  clearInterval(grower);
  const idle = (await cpuSeconds(watcher.pid)) - startup;
  const wall = (performance.now() - started) / 1000;
  watcher.kill();
  await watcher.finished;
  const tick = Math.min(1, Math.max(0.02, idleSeconds / 10));
  const size = (await Deno.stat(t.path)).size / 1024 / 1024;
  console.log(
    [
      `${grown ? "growing" : "idle"} watcher, tick ${tick}s, ${
        wall.toFixed(1)
      } s window, ${size.toFixed(1)} MiB transcript, ${grown} lines appended:`,
      `  start-up (process start to first look): ${
        (startup * 1000).toFixed(0)
      } ms CPU`,
      `  window: ${(idle * 1000).toFixed(0)} ms CPU = ${
        (100 * idle / wall).toFixed(3)
      }% of one core (resolution ${1000 / CLK_TCK} ms)`,
    ].join("\n"),
  );
} finally {
  await project.cleanup();
}

/** Appends answered Bash calls of about 2 KiB each until `bytes` are written. */
async function padTurn(t: SessionTranscript, bytes: number): Promise<void> {
  const output = "ok ".repeat(500);
  let written = 0;
  while (written < bytes) {
    const lines: string[] = [];
    for (let i = 0; i < 64; i++) {
      const id = newId("toolu_");
      lines.push(
        t.toolUse(id, "Bash", { command: "ls" }),
        t.result(id, output),
      );
    }
    written += lines.reduce((n, line) => n + line.length, 0);
    await t.append(...lines);
  }
}
