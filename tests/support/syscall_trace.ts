/**
 * Runs stall-watch under `strace` and lists every path its system calls
 * named, so a test can prove that a path (a symlink's target, a network
 * marker) was never touched: not opened, not `stat`-ed, not resolved.
 * Linux only, and only where `strace` is installed (Debian: `apt-get
 * install strace`); tests say so with {@link NEEDS_STRACE}.
 *
 * @module
 */

import { type RunOptions, runStallWatch } from "./hook_process.ts";
import { missing, offLinux, type Skip } from "./platform.ts";

/** Whether `strace` runs here. */
const HAS_STRACE: boolean = Deno.build.os === "linux" && (() => {
  try {
    return new Deno.Command("strace", { args: ["-V"], stdout: "null" })
      .outputSync().success;
  } catch {
    return false;
  }
})();

/** A test that traces system calls. */
export const NEEDS_STRACE: Skip[] = [
  offLinux("traces system calls with strace, which only Linux has"),
  missing(!HAS_STRACE, "needs strace (apt-get install strace)"),
];

/** A path a system call named, and whether the call followed a symlink there. */
export interface NamedPath {
  call: string;
  /** As named, made absolute against the run's folder. */
  path: string;
  /** The call follows a symlink at `path` (`stat`, `open`), not `lstat`. */
  follows: boolean;
}

/** A traced run: its exit code, output and every path a system call named. */
export interface TracedRun {
  code: number;
  stdout: string;
  stderr: string;
  paths: NamedPath[];
}

/**
 * Runs stall-watch once under `strace -f` (threads and children too), as
 * `runStallWatch` does.
 */
export async function tracedRun(options: RunOptions): Promise<TracedRun> {
  const trace = await Deno.makeTempFile({ prefix: "stall-watch-trace-" });
  try {
    const run = await runStallWatch({
      ...options,
      wrapper: [
        "strace",
        "-f",
        "-qq",
        "-s",
        "4096",
        "-e",
        "trace=%file,readlink,readlinkat",
        "-o",
        trace,
      ],
    });
    return {
      ...run,
      paths: pathsNamed(await Deno.readTextFile(trace), options.cwd),
    };
  } finally {
    await Deno.remove(trace).catch(() => {});
  }
}

/** Calls that never follow a symlink at the path they name (its last step). */
const NO_FOLLOW = new Set([
  "lstat",
  "lstat64",
  "readlink",
  "readlinkat",
  "unlink",
  "unlinkat",
  "rename",
  "renameat",
  "renameat2",
  "rmdir",
  "mkdir",
  "mkdirat",
  "symlink",
  "symlinkat",
  "lchown",
  "link",
  "lgetxattr",
  "llistxattr",
  "lsetxattr",
  "lremovexattr",
]);

/**
 * The paths in strace's output: every quoted string of a call, but for
 * `readlink`, whose second string is what it read (the link's text, which
 * reading is no touch of where it leads), and `execve`'s arguments.
 * Relative paths of calls from the working folder are made absolute
 * against `cwd`; those relative to another open folder are left out.
 */
export function pathsNamed(trace: string, cwd: string): NamedPath[] {
  const found: NamedPath[] = [];
  for (const line of trace.split("\n")) {
    const call = /^(?:\d+\s+)?([a-z0-9_]+)\(/.exec(line)?.[1];
    if (call === undefined) continue;
    const strings = [...line.matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((m) =>
      m[1]!
    );
    const named = call.startsWith("readlink") || call === "execve"
      ? strings.slice(0, 1)
      : strings;
    const fromCwd = !/^(?:\d+\s+)?[a-z0-9_]+\(\d/.test(line);
    const follows = !NO_FOLLOW.has(call) &&
      !/AT_SYMLINK_NOFOLLOW|O_NOFOLLOW|O_EXCL/.test(line) &&
      !(call === "linkat" && !line.includes("AT_SYMLINK_FOLLOW"));
    for (const path of named) {
      if (path === "") continue;
      if (!path.startsWith("/") && !fromCwd) continue;
      found.push({
        call,
        path: path.startsWith("/") ? path : `${cwd}/${path}`,
        follows,
      });
    }
  }
  return found;
}

/**
 * The calls that reached through the symlink `link` (absolute): one that
 * followed it, one that named a path below it (the kernel follows a link
 * on the way), or one that named a path under `target` itself.
 */
export function reachedThrough(
  paths: readonly NamedPath[],
  link: string,
  target: string,
): NamedPath[] {
  return paths.filter((p) =>
    (p.path === link && p.follows) || p.path.startsWith(`${link}/`) ||
    p.path === target || p.path.startsWith(`${target}/`)
  );
}
