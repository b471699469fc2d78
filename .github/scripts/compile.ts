/**
 * Compiles stall-watch into one self-contained executable per target with
 * `deno compile`, baking in exactly the release permission flags from
 * `src/shared/permissions.ts` (the single source of truth), so deno.json tasks
 * and workflows never spell them out.
 *
 *   deno run --allow-read --allow-write=dist --allow-run \
 *     .github/scripts/compile.ts [--target <triple>|host|all] [--out-dir dist]
 *   ... compile.ts [--target ...] --print-path      absolute binary path(s)
 *   ... compile.ts [--target ...] --print-hook-cmd  STALL_WATCH_HOOK_CMD JSON
 *   ... compile.ts [--target ...] --dry-run         the deno argv, not run
 *
 * Output: `<out-dir>/<triple>/stall-watch` (`.exe` on Windows).
 *
 * `--include src/...`: every module under `src/` is embedded explicitly,
 * because the CLI and its subcommands (and the audit's worker) are imported
 * with computed specifiers (`src/shared/lazy_import.ts`) that `deno compile`
 * cannot follow on its own. The Stop hook's bundle
 * (`gen/stop_hook.js`) is a literal import of `main.ts`, so it
 * is embedded as the entry's own graph: a stop of the binary loads
 * `main.ts` and the bundle, exactly as a stop from source does.
 *
 * `--quiet`: `deno compile` bakes its log level into the binary, and at the
 * default one the runtime prints "Failed to resolve 'codex' for allow-run"
 * at every start on a machine without Codex: on a block that line would
 * reach the model with the report. `--no-code-cache`: otherwise the
 * compiled runtime writes a V8 code cache to the OS temp folder on first
 * run, a write outside `./.claude` that the permission flags cannot stop.
 * `--exclude-unused-npm`: embed none of the npm packages in the lockfile
 * (all test-only; the program reaches none).
 *
 * @module
 */

import { fileURLToPath } from "node:url";
import { join, resolve } from "node:path";
import { HOOK_PERMISSION_FLAGS } from "../../src/shared/permissions.ts";

/** A release target. */
export interface Target {
  /** The Rust-style target triple `deno compile --target` takes. */
  triple: string;
  /** The binary's file name. */
  binary: "stall-watch" | "stall-watch.exe";
  /** How the release archives it. */
  archive: "tar.gz" | "zip";
}

/** The five release targets. */
export const TARGETS: readonly Target[] = Object.freeze([
  {
    triple: "x86_64-unknown-linux-gnu",
    binary: "stall-watch",
    archive: "tar.gz",
  },
  {
    triple: "aarch64-unknown-linux-gnu",
    binary: "stall-watch",
    archive: "tar.gz",
  },
  { triple: "x86_64-apple-darwin", binary: "stall-watch", archive: "tar.gz" },
  { triple: "aarch64-apple-darwin", binary: "stall-watch", archive: "tar.gz" },
  {
    triple: "x86_64-pc-windows-msvc",
    binary: "stall-watch.exe",
    archive: "zip",
  },
]);

/** Flags for `deno compile` besides the permissions (see the module doc). */
export const BUILD_FLAGS: readonly string[] = Object.freeze([
  "--quiet",
  "--no-code-cache",
  "--exclude-unused-npm",
]);

/** The repository root (where `deno.json` and `main.ts` are). */
export const REPO_ROOT: string = resolve(
  fileURLToPath(new URL("../..", import.meta.url)),
);

/**
 * The targets a `--target` value names: a triple, `host` or `all`.
 *
 * @param hostTriple `Deno.build.target` of the machine.
 * @throws {RangeError} For a triple that is not a release target.
 */
export function resolveTargets(value: string, hostTriple: string): Target[] {
  if (value === "all") return [...TARGETS];
  const triple = value === "host" ? hostTriple : value;
  const target = TARGETS.find((t) => t.triple === triple);
  if (!target) {
    throw new RangeError(
      `Unknown target "${triple}": use host, all or one of ${
        TARGETS.map((t) => t.triple).join(", ")
      }`,
    );
  }
  return [target];
}

/** Where a target's binary is written. */
export function binaryPath(outDir: string, target: Target): string {
  return join(outDir, target.triple, target.binary);
}

/**
 * The `deno` arguments that compile `entry` for `target`, embedding the
 * modules in `includes` (relative paths, see {@link sourceModules}).
 */
export function compileArgs(
  target: Target,
  outDir: string,
  includes: readonly string[] = [],
  entry = "main.ts",
): string[] {
  return [
    "compile",
    ...HOOK_PERMISSION_FLAGS,
    ...BUILD_FLAGS,
    ...includes.flatMap((module) => ["--include", module]),
    "--target",
    target.triple,
    "--output",
    binaryPath(outDir, target),
    entry,
  ];
}

/**
 * Every TypeScript module under `<root>/src`, as sorted `src/...` paths
 * with forward slashes. Requires `--allow-read`.
 */
export function sourceModules(root: string = REPO_ROOT): string[] {
  const found: string[] = [];
  const walk = (relative: string) => {
    for (const entry of Deno.readDirSync(join(root, relative))) {
      const path = `${relative}/${entry.name}`;
      if (entry.isDirectory) walk(path);
      else if (entry.isFile && entry.name.endsWith(".ts")) found.push(path);
    }
  };
  walk("src");
  return found.sort();
}

/** `STALL_WATCH_HOOK_CMD` for the test harness: the binary as a JSON argv. */
export function hookCmdJson(binary: string): string {
  return JSON.stringify([binary]);
}

interface Options {
  target: string;
  outDir: string;
  mode: "compile" | "print-path" | "print-hook-cmd" | "dry-run";
}

/**
 * Parses the script's arguments.
 *
 * @throws {RangeError} For unknown or incomplete options.
 */
export function parseArgs(args: readonly string[]): Options {
  const options: Options = { target: "host", outDir: "dist", mode: "compile" };
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === "--target" || arg === "--out-dir") {
      const value = args[++i];
      if (!value) throw new RangeError(`${arg} needs a value`);
      if (arg === "--target") options.target = value;
      else options.outDir = value;
    } else if (
      arg === "--print-path" || arg === "--print-hook-cmd" ||
      arg === "--dry-run"
    ) {
      options.mode = arg.slice(2) as Options["mode"];
    } else {
      throw new RangeError(`Unknown argument "${arg}"`);
    }
  }
  return options;
}

async function main(args: readonly string[]): Promise<number> {
  let options: Options;
  let targets: Target[];
  try {
    options = parseArgs(args);
    targets = resolveTargets(options.target, Deno.build.target);
  } catch (error) {
    console.error(`compile: ${(error as Error).message}`);
    return 64;
  }
  const outDir = resolve(REPO_ROOT, options.outDir);
  for (const target of targets) {
    const binary = binaryPath(outDir, target);
    if (options.mode === "print-path") console.log(binary);
    else if (options.mode === "print-hook-cmd") {
      console.log(hookCmdJson(binary));
    } else if (options.mode === "dry-run") {
      console.log(
        ["deno", ...compileArgs(target, outDir, sourceModules())].join(" "),
      );
    } else {
      console.error(`compile: ${target.triple} -> ${binary}`);
      const { code } = await new Deno.Command(Deno.execPath(), {
        args: compileArgs(target, outDir, sourceModules()),
        cwd: REPO_ROOT,
        stdout: "inherit",
        stderr: "inherit",
      }).output();
      if (code !== 0) {
        console.error(`compile: deno compile failed for ${target.triple}`);
        return 1;
      }
    }
  }
  return 0;
}

if (import.meta.main) Deno.exit(await main(Deno.args));
