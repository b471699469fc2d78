/**
 * Finds the real Claude Code releases of the matrix, installing each from
 * npm into a cache folder of its own, outside the repository, when missing.
 *
 * How a release ships its executable differs: up to 2.1.90 (at least) the
 * package's `bin` is `cli.js`, a Node.js program run through its
 * `#!/usr/bin/env node` line; later packages name `bin/claude.exe`, a
 * placeholder that their postinstall script replaces (npm 11 does not run
 * that script without approval), and the executable used is then the native
 * binary of the platform package, the optional dependency
 * `@anthropic-ai/claude-code-<platform>`. The package's own `bin` field
 * says which. Test files run in parallel, so an install is serialised by a
 * lock folder, and a failed install is remembered for the rest of the run:
 * the tier says that release is skipped in one line, once. When `.ci/run`
 * already failed to install, it passes the reason in
 * `STALL_WATCH_CLAUDE_INSTALL_ERROR` and npm is not tried again.
 *
 * @module
 */

import { join } from "node:path";
import { EVENT_WAIT_MS } from "./patience.ts";

/**
 * The releases of the matrix, oldest first: the oldest we support
 * (2.0.76), the first with `last_assistant_message` and the last ignoring
 * `asyncRewake` (2.1.47), one in between (2.1.90), the first starting
 * PostToolUse hooks before the call is on file (2.1.145), one with exec-form
 * hooks and Stop `additionalContext` (2.1.214), and the newest.
 */
export const MATRIX_RELEASES: readonly string[] = Object.freeze([
  "2.0.76",
  "2.1.47",
  "2.1.90",
  "2.1.145",
  "2.1.214",
  "2.1.332",
]);

/** The newest release of the matrix. */
export const NEWEST_RELEASE = MATRIX_RELEASES.at(-1) as string;

const PACKAGE = "@anthropic-ai/claude-code";

const RELEASE = /^\d+\.\d+\.\d+$/;

/**
 * The releases a run covers: `STALL_WATCH_CLAUDE_RELEASES` as a comma- or
 * space-separated list (`2.1.47,2.1.332`; `newest` for the newest alone), or
 * the whole matrix when unset or empty.
 *
 * @throws {Error} For a word that is neither a release nor `newest`.
 */
export function selectedReleases(value: string | undefined): string[] {
  const words = (value ?? "").split(/[\s,]+/).filter((w) => w !== "");
  if (words.length === 0) return [...MATRIX_RELEASES];
  const releases: string[] = [];
  for (const word of words) {
    const release = word === "newest" ? NEWEST_RELEASE : word;
    if (!RELEASE.test(release)) {
      throw new Error(
        `STALL_WATCH_CLAUDE_RELEASES: ${
          JSON.stringify(word)
        } is not a release like 2.1.332 (or "newest")`,
      );
    }
    if (!releases.includes(release)) releases.push(release);
  }
  return releases;
}

/** Compares two `x.y.z` releases: negative, zero or positive. */
export function compareReleases(a: string, b: string): number {
  const pa = a.split(".").map(Number);
  const pb = b.split(".").map(Number);
  for (let i = 0; i < 3; i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}

/**
 * The folder holding one cache folder per release:
 * `$STALL_WATCH_CLAUDE_CACHE`, else `~/.cache/stall-watch`.
 */
export function claudeCacheRoot(): string {
  const override = Deno.env.get("STALL_WATCH_CLAUDE_CACHE");
  if (override) return override;
  const home = Deno.env.get("HOME") ?? Deno.env.get("USERPROFILE") ?? ".";
  return join(home, ".cache", "stall-watch");
}

/** The cache folder of `release`: `<root>/claude-code-<release>`. */
export function claudeCacheDir(release: string): string {
  return join(claudeCacheRoot(), `claude-code-${release}`);
}

/** The platform package's suffix, or null where Claude Code ships none. */
function platformSuffix(): string | null {
  const arch = Deno.build.arch === "aarch64" ? "arm64" : "x64";
  switch (Deno.build.os) {
    case "linux":
      return `linux-${arch}`;
    case "darwin":
      return `darwin-${arch}`;
    default:
      return null; // Windows: the tier's hook wrapper is a shell script
  }
}

/**
 * The executable the installed package names: its `bin.claude` when that
 * is a JavaScript file (a Node.js cli), else the platform package's native
 * binary; null when the package is not installed.
 */
async function executableIn(cache: string): Promise<string | null> {
  const packageDir = join(cache, "node_modules", ...PACKAGE.split("/"));
  let bin: unknown;
  try {
    const manifest = JSON.parse(
      await Deno.readTextFile(join(packageDir, "package.json")),
    );
    bin = typeof manifest.bin === "string"
      ? manifest.bin
      : manifest.bin?.claude;
  } catch {
    return null;
  }
  if (typeof bin === "string" && /\.m?js$/.test(bin)) {
    return join(packageDir, bin);
  }
  const suffix = platformSuffix();
  return suffix
    ? join(cache, "node_modules", `${PACKAGE}-${suffix}`, "claude")
    : null;
}

/** True when `path` runs and reports `release`. */
async function runsAs(path: string, release: string): Promise<boolean> {
  try {
    const home = await Deno.makeTempDir({ prefix: "claude-version-" });
    try {
      const out = await new Deno.Command(path, {
        args: ["--version"],
        clearEnv: true,
        env: {
          HOME: home,
          CLAUDE_CONFIG_DIR: home,
          // A Node.js cli finds `node` on the PATH.
          PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
          DISABLE_AUTOUPDATER: "1",
          CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
        },
        stdin: "null",
        stdout: "piped",
        stderr: "null",
        signal: AbortSignal.timeout(EVENT_WAIT_MS),
      }).output();
      return out.success &&
        new TextDecoder().decode(out.stdout).startsWith(`${release} `);
    } finally {
      await Deno.remove(home, { recursive: true });
    }
  } catch {
    return false;
  }
}

/**
 * The installed executable of `release` in `cache`, or null. A stamp file
 * remembers a release that ran once, so each test file does not start every
 * release to ask its version.
 */
async function findIn(cache: string, release: string): Promise<string | null> {
  const path = await executableIn(cache);
  if (path === null) return null;
  const stamp = join(cache, ".stall-watch-verified");
  try {
    if ((await Deno.readTextFile(stamp)) === `${release}\n${path}\n`) {
      await Deno.stat(path);
      return path;
    }
  } catch { /* not verified yet, or gone */ }
  if (!(await runsAs(path, release))) return null;
  await Deno.writeTextFile(stamp, `${release}\n${path}\n`);
  return path;
}

/**
 * Runs `npm install --prefix <cache> <spec>` (5 minutes at most).
 *
 * @returns `null` when it worked, else why not, in one line.
 */
export async function npmInstall(
  cache: string,
  spec: string,
): Promise<string | null> {
  await Deno.mkdir(cache, { recursive: true });
  try {
    const out = await new Deno.Command("npm", {
      args: [
        "install",
        "--prefix",
        cache,
        "--no-audit",
        "--no-fund",
        "--loglevel=error",
        spec,
      ],
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
      signal: AbortSignal.timeout(300_000),
    }).output();
    if (out.success) return null;
    const lines = new TextDecoder().decode(out.stderr).split("\n")
      .map((line) => line.replace(/^npm (error|ERR!) ?/, "").trim())
      .filter((line) => line !== "" && !line.startsWith("A complete log"));
    const why = lines.find((line) => !/^(code|errno|syscall) /.test(line)) ??
      lines[0] ?? "";
    return `npm install exited ${out.code}: ${why}`.trim();
  } catch (error) {
    return `npm install failed: ${
      error instanceof Error ? error.message : String(error)
    }`;
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Takes the install lock (a folder); false when it stayed held for 6 min. */
export async function lock(path: string): Promise<boolean> {
  const deadline = Date.now() + 360_000;
  while (Date.now() < deadline) {
    try {
      await Deno.mkdir(path);
      return true;
    } catch (error) {
      if (!(error instanceof Deno.errors.AlreadyExists)) throw error;
      try {
        // A lock left by a killed run is older than any install takes.
        const { mtime } = await Deno.stat(path);
        if (mtime && Date.now() - mtime.getTime() > 600_000) {
          await Deno.remove(path, { recursive: true });
        }
      } catch { /* gone meanwhile */ }
      await sleep(250);
    }
  }
  return false;
}

/**
 * The path of the executable of Claude Code `release`, installed with
 * `npm install --prefix <cache>` when missing, or null when it cannot be had
 * (one line on stderr says why, once per run). Requires `--allow-run`,
 * `--allow-read`, `--allow-write` and `--allow-env`.
 */
export async function findOrInstallClaude(
  release: string,
): Promise<string | null> {
  if (platformSuffix() === null) return null;
  const cache = claudeCacheDir(release);
  const found = await findIn(cache, release);
  if (found) return found;
  await Deno.mkdir(join(cache, ".."), { recursive: true });
  const lockPath = `${cache}.lock`;
  const failedPath = `${cache}.failed`;
  if (!(await lock(lockPath))) {
    console.error(
      `claude-code tier: ${release} skipped: install lock ${lockPath} stayed held`,
    );
    return null;
  }
  try {
    const again = await findIn(cache, release);
    if (again) return again;
    // Test files of one `deno test` run share its pid: a failure of this
    // run was already reported; one of an earlier run is retried.
    try {
      const marker = await Deno.readTextFile(failedPath);
      if (marker.startsWith(`${Deno.pid}\n`)) return null;
    } catch { /* no earlier failure */ }
    // `.ci/run` tried already: say why once, do not wait for npm again.
    const problem = Deno.env.get("STALL_WATCH_CLAUDE_INSTALL_ERROR") ||
      await npmInstall(cache, `${PACKAGE}@${release}`) ||
      ((await findIn(cache, release))
        ? null
        : "no runnable executable after install");
    if (problem === null) {
      await Deno.remove(failedPath).catch(() => {});
      return await findIn(cache, release);
    }
    await Deno.writeTextFile(failedPath, `${Deno.pid}\n${problem}\n`);
    console.error(
      `claude-code tier: ${release} skipped: cannot install ${PACKAGE}@${release} into ${cache} (${problem})`,
    );
    return null;
  } finally {
    await Deno.remove(lockPath, { recursive: true }).catch(() => {});
  }
}
