/**
 * The real {@link CliIO}, built from `Deno.*`, for `main.ts` alone.
 *
 * @module
 */

import type { CliIO } from "./cli_io.ts";
import { InputError } from "./errors.ts";

const encoder = new TextEncoder();

/** Builds the process's I/O. Requires `--allow-env` (read once, up front). */
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
  // Synchronous: web streams cost milliseconds at every stop.
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
