/**
 * An in-memory {@link CliIO} for in-process command tests.
 *
 * @module
 */

import type { CliIO } from "../../src/shared/cli_io.ts";

/** A fake io plus what was written to it. */
export interface FakeIO extends CliIO {
  stdout: string[];
  stderr: string[];
}

/** Options for {@link fakeIO}. */
export interface FakeIOOptions {
  cwd: string;
  env?: Record<string, string>;
  stdin?: string;
  stdinIsTerminal?: boolean;
  /** Milliseconds since the epoch; advanced by `sleep`. */
  nowMs?: number;
  /** Called on each sleep, before the clock advances (e.g. to append to a file). */
  onSleep?: (ms: number) => void | Promise<void>;
}

/** Builds a fake io whose clock only moves when something sleeps. */
export function fakeIO(options: FakeIOOptions): FakeIO {
  let now = options.nowMs ?? 1_800_000_000_000;
  const stdout: string[] = [];
  const stderr: string[] = [];
  return {
    env: { STALL_WATCH_LAG_WAIT_MS: "0", ...options.env },
    cwd: options.cwd,
    readStdin: () => Promise.resolve(options.stdin ?? ""),
    stdinIsTerminal: options.stdinIsTerminal ?? false,
    stdoutIsTerminal: false,
    stderrIsTerminal: false,
    writeStdout: (text) => void stdout.push(text),
    writeStderr: (text) => void stderr.push(text),
    now: () => now,
    sleep: async (ms) => {
      await options.onSleep?.(ms);
      now += ms;
    },
    execPath: "/usr/local/bin/stall-watch",
    mainModule: "file:///opt/stall-watch/main.ts",
    stdout,
    stderr,
  };
}
