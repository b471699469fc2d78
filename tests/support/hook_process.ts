/**
 * Runs stall-watch as a separate process, exactly as Claude Code would.
 *
 * The command comes from `STALL_WATCH_HOOK_CMD` (a JSON array, e.g. the
 * compiled binary in CI) and defaults to `deno run` with the permission
 * flags the compile step bakes in, so the suites test what ships.
 *
 * @module
 */

import { fileURLToPath } from "node:url";
import { HOOK_PERMISSION_FLAGS } from "../../src/shared/permissions.ts";
import { SOURCE_RUN_FLAGS } from "../../src/install/hook_command.ts";

/** Absolute path of `main.ts`. */
export const MAIN_TS: string = fileURLToPath(
  new URL("../../main.ts", import.meta.url),
);

/** The argv that starts stall-watch. */
export function hookCommand(): string[] {
  const override = Deno.env.get("STALL_WATCH_HOOK_CMD");
  if (override) {
    const argv = JSON.parse(override);
    if (
      !Array.isArray(argv) || argv.length === 0 ||
      !argv.every((a) => typeof a === "string")
    ) {
      throw new TypeError(
        "STALL_WATCH_HOOK_CMD must be a JSON array of strings",
      );
    }
    return argv;
  }
  return [
    Deno.execPath(),
    "run",
    ...SOURCE_RUN_FLAGS,
    ...HOOK_PERMISSION_FLAGS,
    MAIN_TS,
  ];
}

/** What a run printed and returned. */
export interface ProcessResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Options for {@link runStallWatch}. */
export interface RunOptions {
  /** Directory to start in (its `.claude` is the only writable place). */
  cwd: string;
  /** Text for stdin; a payload object is JSON-encoded. */
  stdin?: string | Record<string, unknown>;
  /** Arguments after the command (none = the hook). */
  args?: string[];
  /** Extra environment; the rest is a clean minimal environment. */
  env?: Record<string, string>;
  /** A program and its arguments that run stall-watch (`strace -f ...`). */
  wrapper?: string[];
}

/** Environment variables every run inherits from the test process. */
const INHERITED = [
  "PATH",
  "HOME",
  "DENO_DIR",
  "TMPDIR",
  "SYSTEMROOT",
  "USERPROFILE",
  "LOCALAPPDATA",
  // Set by the Windows lane: Deno's node.exe shim races under Wine and
  // leaves a 93 MB copy per lost race (docs/development.md).
  "DENO_DISABLE_NODE_SHIM",
];

/** Runs stall-watch once and collects its output. */
export async function runStallWatch(
  options: RunOptions,
): Promise<ProcessResult> {
  return await (await spawnStallWatch(options)).finished;
}

/** A started stall-watch process (e.g. a watcher the test feeds meanwhile). */
export interface RunningStallWatch {
  pid: number;
  /** Resolves with the output once the process exits. */
  finished: Promise<ProcessResult>;
  /** Ends the process early (test clean-up only). */
  kill(): void;
}

/** Starts stall-watch, writes and closes its stdin, and does not wait for it. */
export async function spawnStallWatch(
  options: RunOptions,
): Promise<RunningStallWatch> {
  const [program, ...baseArgs] = [...options.wrapper ?? [], ...hookCommand()];
  const env: Record<string, string> = {
    STALL_WATCH_LAG_WAIT_MS: "0",
    NO_COLOR: "1",
  };
  for (const name of INHERITED) {
    const value = Deno.env.get(name);
    if (value !== undefined) env[name] = value;
  }
  Object.assign(env, options.env ?? {});
  const child = new Deno.Command(program as string, {
    args: [...baseArgs, ...(options.args ?? [])],
    cwd: options.cwd,
    env,
    clearEnv: true,
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  const stdin = typeof options.stdin === "object"
    ? JSON.stringify(options.stdin)
    : options.stdin ?? "";
  await writer.write(new TextEncoder().encode(stdin)).catch(() => {});
  await writer.close().catch(() => {});
  const decoder = new TextDecoder();
  const finished = child.output().then((output) => ({
    code: output.code,
    stdout: decoder.decode(output.stdout),
    stderr: decoder.decode(output.stderr),
  }));
  const kill = () => {
    try {
      child.kill();
    } catch {
      // already exited
    }
  };
  return { pid: child.pid, finished, kill };
}

// The benchmarks import tempProject from here; tests import it from its own module.
export { tempProject } from "./temp_project.ts";
