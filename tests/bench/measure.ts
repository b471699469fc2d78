/**
 * Measures one child process: wall time and peak resident memory.
 *
 * How peak RSS is measured on Linux, best first:
 *
 * 1. `python3-wait4`: a tiny Python wrapper starts the child, feeds its
 *    stdin, and reaps it with `os.wait4()`, whose `ru_maxrss` (KiB) is the
 *    kernel's high-water mark of that one child. Wall time is taken inside
 *    the wrapper around spawn and reap, so Python's own start-up is not
 *    counted. (The child is spawned with vfork/posix_spawn; the wrapper's
 *    ~10 MiB could only show if the child peaked below it, which a Deno
 *    process never does.)
 * 2. `gnu-time`: `/usr/bin/time -f %M`, the same `getrusage` number;
 *    wall time is taken here and includes `time`'s exec (about 1 ms).
 * 3. `wall-only`: neither is available; peak RSS is reported as n/a.
 *
 * Polling `/proc/<pid>/status` for `VmHWM` is not used: the value is gone once
 * the process exits, and sampling misses short peaks.
 *
 * @module
 */

/** How measurements are taken on this machine. */
export type Method = "python3-wait4" | "gnu-time" | "wall-only";

/** One process to run. */
export interface RunSpec {
  /** Program and arguments. */
  readonly argv: readonly string[];
  /** Working directory. */
  readonly cwd: string;
  /** Variables added to the inherited environment. */
  readonly env: Readonly<Record<string, string>>;
  /** Text written to the child's stdin, which is then closed. */
  readonly stdin: string;
  /** Kill the child after this many milliseconds (default: never). */
  readonly timeoutMs?: number;
}

/** The result of one run. */
export interface Measurement {
  /** Wall-clock time from spawn to exit, in milliseconds. */
  readonly wallMs: number;
  /** Peak resident set size in KiB, or null when it cannot be measured. */
  readonly peakRssKiB: number | null;
  /** The child's exit code. */
  readonly code: number;
  /** The start of the child's stderr (for diagnostics). */
  readonly stderr: string;
  /** True when the child was killed at `timeoutMs`. */
  readonly timedOut: boolean;
}

const GNU_TIME = "/usr/bin/time";
const STDERR_KEEP = 2000;
const WAIT4_SCRIPT = `
import json, os, subprocess, sys, threading, time
argv = json.loads(sys.argv[1])
timeout = float(sys.argv[2])
data = sys.stdin.buffer.read()
t0 = time.perf_counter_ns()
p = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
killed = []
timer = threading.Timer(timeout, lambda: (killed.append(1), p.kill()))
if timeout > 0: timer.start()
try:
  p.stdin.write(data)
  p.stdin.close()
except BrokenPipeError:
  pass
err = p.stderr.read()
_, status, ru = os.wait4(p.pid, 0)
t1 = time.perf_counter_ns()
timer.cancel()
p.returncode = os.waitstatus_to_exitcode(status)
print(json.dumps({"wall_ms": (t1 - t0) / 1e6, "maxrss_kib": ru.ru_maxrss,
  "code": p.returncode, "timed_out": bool(killed),
  "stderr": err[:${STDERR_KEEP}].decode("utf-8", "replace")}))
`;

/**
 * Picks the best available method (see the module comment).
 *
 * Requires `--allow-run` (and `--allow-read` to look for `/usr/bin/time`).
 */
export async function detectMethod(): Promise<Method> {
  if (await succeeds(["python3", "-c", "import os, resource; os.wait4"])) {
    return "python3-wait4";
  }
  if (await succeeds([GNU_TIME, "-f", "%M", "true"])) return "gnu-time";
  return "wall-only";
}

/**
 * Runs `spec` once and measures it with `method`.
 *
 * Requires `--allow-run` and `--allow-env`; `gnu-time` also needs
 * `--allow-read` and `--allow-write` for its temporary output file.
 */
export function measure(spec: RunSpec, method: Method): Promise<Measurement> {
  switch (method) {
    case "python3-wait4":
      return measureWait4(spec);
    case "gnu-time":
      return measureGnuTime(spec);
    case "wall-only":
      return measureWall(spec);
  }
}

async function succeeds(argv: readonly string[]): Promise<boolean> {
  try {
    const [cmd, ...args] = argv as [string, ...string[]];
    const out = await new Deno.Command(cmd, {
      args,
      stdout: "null",
      stderr: "null",
    }).output();
    return out.success;
  } catch {
    return false;
  }
}

async function run(
  argv: readonly string[],
  spec: Omit<RunSpec, "timeoutMs"> & { timeoutMs?: number | undefined },
): Promise<Deno.CommandOutput & { timedOut: boolean }> {
  const [cmd, ...args] = argv as [string, ...string[]];
  const child = new Deno.Command(cmd, {
    args,
    cwd: spec.cwd,
    env: { ...spec.env },
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  let timedOut = false;
  const timer = spec.timeoutMs === undefined ? undefined : setTimeout(() => {
    timedOut = true;
    child.kill("SIGKILL");
  }, spec.timeoutMs);
  try {
    const writer = child.stdin.getWriter();
    await writer.write(new TextEncoder().encode(spec.stdin)).catch(() => {});
    await writer.close().catch(() => {});
    return { ...(await child.output()), timedOut };
  } finally {
    clearTimeout(timer);
  }
}

async function measureWait4(spec: RunSpec): Promise<Measurement> {
  const out = await run(
    [
      "python3",
      "-c",
      WAIT4_SCRIPT,
      JSON.stringify(spec.argv),
      String((spec.timeoutMs ?? 0) / 1000),
    ],
    { ...spec, timeoutMs: undefined },
  );
  const text = new TextDecoder().decode(out.stdout);
  if (!out.success) {
    const err = new TextDecoder().decode(out.stderr);
    throw new Error(`Cannot measure with python3: ${err.trim()}`);
  }
  const r = JSON.parse(text) as {
    wall_ms: number;
    maxrss_kib: number;
    code: number;
    timed_out: boolean;
    stderr: string;
  };
  return {
    wallMs: r.wall_ms,
    peakRssKiB: r.maxrss_kib,
    code: r.code,
    stderr: r.stderr,
    timedOut: r.timed_out,
  };
}

async function measureGnuTime(spec: RunSpec): Promise<Measurement> {
  const file = await Deno.makeTempFile({ prefix: "bench_time_" });
  try {
    const t0 = performance.now();
    const out = await run(
      [GNU_TIME, "-f", "%M", "-o", file, ...spec.argv],
      spec,
    );
    const wallMs = performance.now() - t0;
    // time writes "Command exited with non-zero status N" before the number.
    const lines = (await Deno.readTextFile(file)).trim().split("\n");
    const rss = Number(lines[lines.length - 1]);
    return {
      wallMs,
      peakRssKiB: Number.isFinite(rss) ? rss : null,
      code: out.code,
      stderr: stderrOf(out),
      timedOut: out.timedOut,
    };
  } finally {
    await Deno.remove(file);
  }
}

async function measureWall(spec: RunSpec): Promise<Measurement> {
  const t0 = performance.now();
  const out = await run(spec.argv, spec);
  return {
    wallMs: performance.now() - t0,
    peakRssKiB: null,
    code: out.code,
    stderr: stderrOf(out),
    timedOut: out.timedOut,
  };
}

function stderrOf(out: Deno.CommandOutput): string {
  return new TextDecoder().decode(out.stderr.subarray(0, STDERR_KEEP));
}
