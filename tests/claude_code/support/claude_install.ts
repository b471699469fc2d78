/**
 * Finds the pinned real Claude Code CLI, installing it from npm into a cache
 * folder outside the repository when it is missing.
 *
 * The npm package's `bin/claude.exe` is a placeholder that its postinstall
 * script replaces (npm 11 does not run that script without approval), so the
 * executable used is the native binary of the platform package, the optional
 * dependency `@anthropic-ai/claude-code-<platform>`. Test files run in
 * parallel, so the install is serialised by a lock folder, and a failed
 * install is remembered for the rest of the run: the tier says it is skipped
 * in one line, once. When `.ci/run` already failed to install it, it passes
 * the reason in `STALL_WATCH_CLAUDE_INSTALL_ERROR` and npm is not tried
 * again.
 *
 * @module
 */

import { join } from "node:path";

/** The Claude Code release the tier is pinned to. */
export const CLAUDE_CODE_VERSION = "2.1.332";

const PACKAGE = "@anthropic-ai/claude-code";

/**
 * The cache folder: `$STALL_WATCH_CLAUDE_CACHE`, else
 * `~/.cache/stall-watch/claude-code-<version>`.
 */
export function claudeCacheDir(): string {
  const override = Deno.env.get("STALL_WATCH_CLAUDE_CACHE");
  if (override) return override;
  const home = Deno.env.get("HOME") ?? Deno.env.get("USERPROFILE") ?? ".";
  return join(
    home,
    ".cache",
    "stall-watch",
    `claude-code-${CLAUDE_CODE_VERSION}`,
  );
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

/** Paths that may hold the executable, best first. */
function candidates(cache: string): string[] {
  const suffix = platformSuffix();
  const modules = join(cache, "node_modules");
  const list = [join(modules, ".bin", "claude")];
  if (suffix) list.unshift(join(modules, `${PACKAGE}-${suffix}`, "claude"));
  return list;
}

/** True when `path` runs and reports the pinned version. */
async function isPinnedClaude(path: string): Promise<boolean> {
  try {
    const home = await Deno.makeTempDir({ prefix: "claude-version-" });
    try {
      const out = await new Deno.Command(path, {
        args: ["--version"],
        clearEnv: true,
        env: { HOME: home, CLAUDE_CONFIG_DIR: home, PATH: "/usr/bin:/bin" },
        stdin: "null",
        stdout: "piped",
        stderr: "null",
        signal: AbortSignal.timeout(20_000),
      }).output();
      return out.success &&
        new TextDecoder().decode(out.stdout).startsWith(
          `${CLAUDE_CODE_VERSION} `,
        );
    } finally {
      await Deno.remove(home, { recursive: true });
    }
  } catch {
    return false;
  }
}

/** The installed executable in `cache`, or null. */
async function findIn(cache: string): Promise<string | null> {
  for (const path of candidates(cache)) {
    if (await isPinnedClaude(path)) return path;
  }
  return null;
}

async function npmInstall(cache: string): Promise<string | null> {
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
        `${PACKAGE}@${CLAUDE_CODE_VERSION}`,
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
async function lock(path: string): Promise<boolean> {
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
 * The path of the pinned Claude Code executable, installed with
 * `npm install --prefix <cache>` when missing, or null when it cannot be had
 * (one line on stderr says why, once per run). Requires `--allow-run`,
 * `--allow-read`, `--allow-write` and `--allow-env`.
 */
export async function findOrInstallClaude(): Promise<string | null> {
  if (platformSuffix() === null) return null;
  const cache = claudeCacheDir();
  const found = await findIn(cache);
  if (found) return found;
  await Deno.mkdir(join(cache, ".."), { recursive: true });
  const lockPath = `${cache}.lock`;
  const failedPath = `${cache}.failed`;
  if (!(await lock(lockPath))) {
    console.error(
      `claude-code tier skipped: install lock ${lockPath} stayed held`,
    );
    return null;
  }
  try {
    const again = await findIn(cache);
    if (again) return again;
    // Test files of one `deno test` run share its pid: a failure of this
    // run was already reported; one of an earlier run is retried.
    try {
      const marker = await Deno.readTextFile(failedPath);
      if (marker.startsWith(`${Deno.pid}\n`)) return null;
    } catch { /* no earlier failure */ }
    // `.ci/run` tried already: say why once, do not wait for npm again.
    const problem = Deno.env.get("STALL_WATCH_CLAUDE_INSTALL_ERROR") ||
      await npmInstall(cache) ||
      ((await findIn(cache))
        ? null
        : "no runnable native binary after install");
    if (problem === null) {
      await Deno.remove(failedPath).catch(() => {});
      return await findIn(cache);
    }
    await Deno.writeTextFile(failedPath, `${Deno.pid}\n${problem}\n`);
    console.error(
      `claude-code tier skipped: cannot install ${PACKAGE}@${CLAUDE_CODE_VERSION} into ${cache} (${problem})`,
    );
    return null;
  } finally {
    await Deno.remove(lockPath, { recursive: true }).catch(() => {});
  }
}
