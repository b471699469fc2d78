/**
 * The real {@link CliIO}, built from `Deno.*`. Only `main.ts` uses it,
 * directly for a command and through the bundled Stop hook
 * (`hook/stop_hook.ts`) for a stop.
 *
 * @module
 */

import type { CliIO } from "./cli_io.ts";
import { InputError } from "./errors.ts";

const encoder = new TextEncoder();

/**
 * Builds the process's I/O. Requires `--allow-env` (reads the environment
 * once, up front).
 */
export function realIO(): CliIO {
  return {
    env: Deno.env.toObject(),
    cwd: Deno.cwd(),
    readStdin,
    stdinIsTerminal: Deno.stdin.isTerminal(),
    stdoutIsTerminal: Deno.stdout.isTerminal(),
    stderrIsTerminal: Deno.stderr.isTerminal(),
    writeStdout: (text) => writeAll(Deno.stdout, text),
    writeStderr: (text) => writeAll(Deno.stderr, text),
    now: () => Date.now(),
    sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
    execPath: Deno.execPath(),
    mainModule: Deno.mainModule,
  };
}

function readStdin(limitBytes: number): Promise<string> {
  try {
    return Promise.resolve(readStdinSync(limitBytes));
  } catch (error) {
    return Promise.reject(error);
  }
}

function readStdinSync(limitBytes: number): string {
  // Plain synchronous reads, not `Deno.stdin.readable` or async reads: web
  // streams and thread-pool round trips cost the hook milliseconds of
  // start-up at every stop. One buffer of the limit's size (its pages are
  // only touched as they fill), so a large payload is held once, not twice.
  const bytes = new Uint8Array(limitBytes + 1);
  let total = 0;
  for (;;) {
    const read = Deno.stdin.readSync(bytes.subarray(total));
    if (read === null) break;
    total += read;
    if (total > limitBytes) {
      throw new InputError(
        `Cannot parse hook input: stdin exceeds ${
          limitBytes / 1024 / 1024
        } MiB`,
      );
    }
  }
  return new TextDecoder().decode(bytes.subarray(0, total));
}

function writeAll(stream: typeof Deno.stdout, text: string): void {
  const bytes = encoder.encode(text);
  let written = 0;
  try {
    while (written < bytes.length) {
      written += stream.writeSync(bytes.subarray(written));
    }
  } catch {
    // A closed pipe must not turn a decision into a crash.
  }
}
