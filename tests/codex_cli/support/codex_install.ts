/**
 * Finds the pinned release of the real Codex CLI, installing it from npm
 * into a cache folder of its own, outside the repository, when missing.
 *
 * `@openai/codex`'s `bin` is `bin/codex.js`, a Node.js launcher that only
 * finds and starts the native binary of the platform package (the optional
 * dependency `@openai/codex-<platform>`, an alias of
 * `@openai/codex@<release>-<platform>`). The tier starts that binary
 * itself: no Node.js in between, and a kill reaches Codex. Test files run
 * in parallel, so an install is serialised by a lock folder and a failed
 * install is remembered for the rest of the run: the tier says it is
 * skipped in one line, once. When `.ci/run` already failed to install, it
 * passes the reason in `STALL_WATCH_CODEX_INSTALL_ERROR` and npm is not
 * tried again.
 *
 * @module
 */

import { join } from "node:path";
import {
  claudeCacheRoot,
  lock,
  npmInstall,
} from "../../claude_code/support/claude_install.ts";
import { EVENT_WAIT_MS } from "../../claude_code/support/patience.ts";

/** The Codex CLI release the tier runs (npm `latest` when it was pinned). */
export const CODEX_RELEASE = "0.171.0";

const PACKAGE = "@openai/codex";

/** The cache folder of `release`: `<root>/codex-<release>`. */
export function codexCacheDir(release: string = CODEX_RELEASE): string {
  return join(claudeCacheRoot(), `codex-${release}`);
}

/** The platform package and its target triple, or null where none ships. */
function platformTarget(): { suffix: string; triple: string } | null {
  const arm = Deno.build.arch === "aarch64";
  switch (Deno.build.os) {
    case "linux":
      return arm
        ? { suffix: "linux-arm64", triple: "aarch64-unknown-linux-musl" }
        : { suffix: "linux-x64", triple: "x86_64-unknown-linux-musl" };
    case "darwin":
      return arm
        ? { suffix: "darwin-arm64", triple: "aarch64-apple-darwin" }
        : { suffix: "darwin-x64", triple: "x86_64-apple-darwin" };
    default:
      return null; // Windows: the tier's hook wrapper is a shell script
  }
}

/** Where the platform package puts the native binary under `cache`. */
export function codexBinaryIn(cache: string): string | null {
  const target = platformTarget();
  if (target === null) return null;
  return join(
    cache,
    "node_modules",
    `${PACKAGE}-${target.suffix}`,
    "vendor",
    target.triple,
    "bin",
    "codex",
  );
}

/** True when `path` runs and reports `release`. */
async function runsAs(path: string, release: string): Promise<boolean> {
  try {
    const home = await Deno.makeTempDir({ prefix: "codex-version-" });
    try {
      const out = await new Deno.Command(path, {
        args: ["--version"],
        clearEnv: true,
        env: { HOME: home, CODEX_HOME: home, PATH: "/usr/bin:/bin" },
        stdin: "null",
        stdout: "piped",
        stderr: "null",
        signal: AbortSignal.timeout(EVENT_WAIT_MS),
      }).output();
      return out.success &&
        new TextDecoder().decode(out.stdout).trim() === `codex-cli ${release}`;
    } finally {
      await Deno.remove(home, { recursive: true });
    }
  } catch {
    return false;
  }
}

/**
 * The installed binary of `release` in `cache`, or null. A stamp file
 * remembers a binary that ran once, so each test file does not start it to
 * ask its version.
 */
async function findIn(cache: string, release: string): Promise<string | null> {
  const path = codexBinaryIn(cache);
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
 * The path of the native `codex` binary of `release`, installed with
 * `npm install --prefix <cache>` when missing, or null when it cannot be
 * had (one line on stderr says why, once per run). Requires `--allow-run`,
 * `--allow-read`, `--allow-write` and `--allow-env`.
 */
export async function findOrInstallCodex(
  release: string = CODEX_RELEASE,
): Promise<string | null> {
  if (platformTarget() === null) return null;
  const cache = codexCacheDir(release);
  const found = await findIn(cache, release);
  if (found) return found;
  await Deno.mkdir(join(cache, ".."), { recursive: true });
  const lockPath = `${cache}.lock`;
  const failedPath = `${cache}.failed`;
  if (!(await lock(lockPath))) {
    console.error(
      `codex tier: skipped: install lock ${lockPath} stayed held`,
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
    await Deno.mkdir(cache, { recursive: true });
    const problem = Deno.env.get("STALL_WATCH_CODEX_INSTALL_ERROR") ||
      await npmInstall(cache, `${PACKAGE}@${release}`) ||
      ((await findIn(cache, release))
        ? null
        : "no runnable codex binary after install");
    if (problem === null) {
      await Deno.remove(failedPath).catch(() => {});
      return await findIn(cache, release);
    }
    await Deno.writeTextFile(failedPath, `${Deno.pid}\n${problem}\n`);
    console.error(
      `codex tier: skipped: cannot install ${PACKAGE}@${release} into ${cache} (${problem})`,
    );
    return null;
  } finally {
    await Deno.remove(lockPath, { recursive: true }).catch(() => {});
  }
}
