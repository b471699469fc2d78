/**
 * Runs the plugin's shell scripts (`hooks/launch.sh`, `hooks/fetch.sh`) the
 * way Claude Code does, in a world the test controls: a temporary plugin
 * copy, data folder, project and HOME, a PATH holding only the tools the
 * scripts may use (so whether Deno "is installed" is the test's choice),
 * and stand-ins for the release binary, `deno`, `uname` and `curl` that
 * record how they were called.
 *
 * @module
 */

import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { TARGETS } from "../../.github/scripts/compile.ts";
import {
  archiveCommand,
  archiveName,
  sha256File,
} from "../../.github/scripts/package.ts";
import { tempFixture } from "./temp_project.ts";
import { RUNS_SH_SCRIPTS, skipWhere } from "./platform.ts";

/** The repository root (the plugin's root when installed). */
export const REPO: string = fileURLToPath(new URL("../..", import.meta.url))
  .replace(/\/$/, "");

/** The plugin's version, from its manifest. */
export const PLUGIN_VERSION: string = JSON.parse(
  await Deno.readTextFile(join(REPO, ".claude-plugin", "plugin.json")),
).version;

/** The tools the scripts call, besides the ones a test fakes. */
const TOOLS = [
  "sh",
  "dash",
  "bash",
  "sed",
  "tr",
  "uname",
  "awk",
  "cat",
  "curl",
  "tar",
  "gzip",
  "unzip",
  "sha256sum",
  "shasum",
  "openssl",
  "mktemp",
  "mkdir",
  "mv",
  "rm",
  "rmdir",
  "chmod",
  "find",
  "nohup",
  "sleep",
  "env",
  "printf",
  "cp",
];

/** The shells the scripts are tested under (those installed here). */
export const SHELLS: string[] = await (async () => {
  const found: string[] = [];
  for (const shell of ["dash", "bash"]) {
    if (await which(shell)) found.push(shell);
  }
  if (found.length === 0) found.push("sh");
  return found;
})();

async function which(tool: string): Promise<string | null> {
  try {
    const out = await new Deno.Command("sh", {
      args: ["-c", 'command -v "$1"', "sh", tool],
      stdout: "piped",
      stderr: "null",
    }).output();
    const path = new TextDecoder().decode(out.stdout).trim();
    return out.success && path.startsWith("/") ? path : null;
  } catch {
    return null;
  }
}

/** This machine's release target triple. */
export function hostTarget(): string {
  const target = TARGETS.find((t) => t.triple === Deno.build.target);
  if (!target) throw new Error(`no release target for ${Deno.build.target}`);
  return target.triple;
}

/** Single-quotes a word for `sh`. */
export function shQuote(word: string): string {
  return `'${word.replaceAll("'", `'\\''`)}'`;
}

/** The fixed PATH line of `hooks/fetch.sh`. */
export const FETCH_PATH_LINE = "PATH=/usr/bin:/bin:/usr/sbin:/sbin";

/** One temporary world for the scripts. */
export interface ScriptWorld {
  /** Holds everything below. */
  root: string;
  /** The plugin's root: a copy of `hooks/` and `.claude-plugin/`. */
  plugin: string;
  /** `CLAUDE_PLUGIN_DATA`. */
  data: string;
  /** `CLAUDE_PROJECT_DIR`. */
  project: string;
  home: string;
  /** Where the test's fake tools go; first on PATH. */
  fakes: string;
  /** Only the real tools, without `deno`. */
  tools: string;
  /** Links the source (`main.ts`, `gen/`, `src/`, `vendor/`, `deno.json`) into the plugin copy. */
  linkSource(): Promise<void>;
  /** Writes an executable `sh` script named `name` into `fakes`. */
  fake(name: string, body: string): Promise<string>;
  /**
   * Pins archives in the plugin copy's `hooks/release.sha256`, as the
   * release of this version would (`name` an archive, `sha256` its hash).
   */
  pin(archives: readonly { name: string; sha256: string }[]): Promise<void>;
  /**
   * A stand-in release binary at `bin/<version>/<target>/` of the data
   * folder that records its cwd and arguments in `<root>/binary-runs` and
   * answers like `behaviour` says.
   */
  standInBinary(options?: StandInOptions): Promise<string>;
  /** The environment of a hook run (PATH: fakes, tools). */
  env(extra?: Record<string, string | undefined>): Record<string, string>;
  /** Runs `sh <script> <args>` like a hook, `stdin` on stdin. */
  run(script: string, options?: ScriptRunOptions): Promise<ScriptResult>;
  /** The lines the stand-ins recorded in `<root>/<name>`, or []. */
  recorded(name: string): Promise<string[]>;
}

/** How a stand-in binary answers. */
export interface StandInOptions {
  version?: string;
  target?: string;
  /** Exit code (default 0). */
  code?: number;
  /** What it writes on stderr. */
  stderr?: string;
  /** What it writes on stdout. */
  stdout?: string;
  /** Leave out the execute bit. */
  notExecutable?: boolean;
}

/** Options of {@link ScriptWorld.run}. */
export interface ScriptRunOptions {
  args?: string[];
  stdin?: string;
  /** The shell (default the first of {@link SHELLS}). */
  shell?: string;
  /** The folder it starts in (default the project). */
  cwd?: string;
  env?: Record<string, string | undefined>;
  /** The script path as passed to the shell (default `<plugin>/hooks/<script>`). */
  path?: string;
}

/** What a script run did. */
export interface ScriptResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** The stand-in binary's script. */
export function standInScript(record: string, options: StandInOptions): string {
  const lines = [
    "#!/bin/sh",
    "# A stand-in for the stall-watch release binary (tests only).",
    `if [ "$1" = --version ]; then echo ${
      shQuote(`stall-watch ${options.version ?? PLUGIN_VERSION}`)
    }; exit 0; fi`,
    `{ printf 'cwd=%s\\n' "$PWD"; printf 'args=%s\\n' "$*"; printf 'stdin=%s\\n' "$(cat)"; } >> ${
      shQuote(record)
    }`,
  ];
  if (options.stdout) lines.push(`printf '%s' ${shQuote(options.stdout)}`);
  if (options.stderr) lines.push(`printf '%s' ${shQuote(options.stderr)} >&2`);
  lines.push(`exit ${options.code ?? 0}`, "");
  return lines.join("\n");
}

/**
 * Registers `fn` as one test per shell in {@link SHELLS}, named
 * `<script> (<shell>): <name>`, each in a fresh world; skipped where the
 * scripts cannot run.
 */
export function scriptTest(
  script: string,
  name: string,
  fn: (world: ScriptWorld, shell: string) => Promise<void>,
): void {
  for (const shell of SHELLS) {
    Deno.test({
      ...skipWhere(
        `${script} (${shell}): ${name}`,
        RUNS_SH_SCRIPTS,
      ),
      fn: async () => {
        await using world = await scriptWorld();
        await fn(world, shell);
      },
    });
  }
}

/** Options of {@link scriptWorld}. */
export interface WorldOptions {
  /**
   * Keep `hooks/fetch.sh`'s own fixed PATH. By default the copy's PATH line
   * is the world's (fakes, then the tools), so a test chooses the tools the
   * fetch finds, as the system's folders would.
   */
  systemPath?: boolean;
}

/** A fresh world; disposal removes it. */
export function scriptWorld(
  options: WorldOptions = {},
): Promise<ScriptWorld & AsyncDisposable> {
  return tempFixture(async (root): Promise<ScriptWorld> => {
    const plugin = join(root, "plugin");
    const data = join(root, "data");
    const project = join(root, "project");
    const home = join(root, "home");
    const fakes = join(root, "fakes");
    const tools = join(root, "tools");
    for (const dir of [plugin, data, project, home, fakes, tools]) {
      await Deno.mkdir(dir, { recursive: true });
    }
    for (const folder of ["hooks", ".claude-plugin"]) {
      await copyFolder(join(REPO, folder), join(plugin, folder));
    }
    for (const tool of TOOLS) {
      const path = await which(tool);
      if (path) await Deno.symlink(path, join(tools, tool));
    }
    if (!options.systemPath) {
      const fetch = join(plugin, "hooks", "fetch.sh");
      const text = await Deno.readTextFile(fetch);
      if (!text.includes(`\n${FETCH_PATH_LINE}\n`)) {
        throw new Error(`fetch.sh has no line ${FETCH_PATH_LINE}`);
      }
      await Deno.writeTextFile(
        fetch,
        text.replace(FETCH_PATH_LINE, `PATH=${fakes}:${tools}`),
      );
    }
    const world: ScriptWorld = {
      root,
      plugin,
      data,
      project,
      home,
      fakes,
      tools,
      linkSource: async () => {
        for (const name of ["main.ts", "gen", "src", "vendor", "deno.json"]) {
          await Deno.symlink(join(REPO, name), join(plugin, name));
        }
      },
      fake: async (name, body) => {
        const path = join(fakes, name);
        await Deno.writeTextFile(path, `#!/bin/sh\n${body}\n`, {
          mode: 0o755,
        });
        return path;
      },
      pin: async (archives) => {
        await Deno.writeTextFile(
          join(plugin, "hooks", "release.sha256"),
          archives.map((a) => `${a.sha256}  v${PLUGIN_VERSION}/${a.name}\n`)
            .join(""),
          { append: true },
        );
      },
      standInBinary: async (options = {}) => {
        const target = options.target ?? hostTarget();
        const name = target.includes("windows")
          ? "stall-watch.exe"
          : "stall-watch";
        const dir = join(
          data,
          "bin",
          options.version ?? PLUGIN_VERSION,
          target,
        );
        await Deno.mkdir(dir, { recursive: true });
        const path = join(dir, name);
        await Deno.writeTextFile(
          path,
          standInScript(join(root, "binary-runs"), options),
          { mode: options.notExecutable ? 0o644 : 0o755 },
        );
        if (options.notExecutable) await Deno.chmod(path, 0o644);
        return path;
      },
      env: (extra = {}) => {
        const env: Record<string, string> = {
          PATH: `${fakes}:${tools}`,
          HOME: home,
          LANG: "C.UTF-8",
          CLAUDE_PROJECT_DIR: project,
          CLAUDE_PLUGIN_ROOT: plugin,
          CLAUDE_PLUGIN_DATA: data,
          CLAUDE_CODE_SESSION_ID: "session-1",
        };
        for (const [key, value] of Object.entries(extra)) {
          if (value === undefined) delete env[key];
          else env[key] = value;
        }
        return env;
      },
      run: async (script, options = {}) => {
        const child = new Deno.Command(options.shell ?? SHELLS[0]!, {
          args: [options.path ?? join(plugin, "hooks", script)].concat(
            options.args ?? [],
          ),
          cwd: options.cwd ?? project,
          clearEnv: true,
          env: world.env(options.env),
          stdin: "piped",
          stdout: "piped",
          stderr: "piped",
          signal: AbortSignal.timeout(120_000),
        }).spawn();
        const writer = child.stdin.getWriter();
        await writer.write(new TextEncoder().encode(options.stdin ?? "{}"))
          .catch(() => {});
        await writer.close().catch(() => {});
        const out = await child.output();
        return {
          code: out.code,
          stdout: new TextDecoder().decode(out.stdout),
          stderr: new TextDecoder().decode(out.stderr),
        };
      },
      recorded: async (name) => {
        try {
          return (await Deno.readTextFile(join(root, name))).split("\n")
            .filter((line) => line !== "");
        } catch (error) {
          if (error instanceof Deno.errors.NotFound) return [];
          throw error;
        }
      },
    };
    return world;
  }, "stall-watch-plugin-");
}

async function copyFolder(from: string, to: string): Promise<void> {
  await Deno.mkdir(to, { recursive: true });
  for await (const entry of Deno.readDir(from)) {
    if (entry.isDirectory) {
      await copyFolder(join(from, entry.name), join(to, entry.name));
    } else if (entry.isFile) {
      await Deno.copyFile(join(from, entry.name), join(to, entry.name));
    }
  }
}

/** A release archive for this machine's target, and its SHA-256. */
export interface PackedRelease {
  /** Its file name, as the release names it. */
  name: string;
  bytes: Uint8Array<ArrayBuffer>;
  sha256: string;
}

/**
 * A stand-in binary ({@link standInScript}, recording its runs in
 * `<root>/<record>`) archived for this machine's target as
 * `deno task package` archives it, in `<root>/<folder>`.
 */
export async function packStandIn(
  root: string,
  options: StandInOptions & { record?: string; folder?: string } = {},
): Promise<PackedRelease> {
  const target = TARGETS.find((t) => t.triple === hostTarget())!;
  const dir = join(root, options.folder ?? "release-build");
  await Deno.mkdir(dir, { recursive: true });
  const binary = join(dir, target.binary);
  await Deno.writeTextFile(
    binary,
    standInScript(join(root, options.record ?? "binary-runs"), options),
    { mode: 0o755 },
  );
  const name = archiveName(target);
  const archive = join(dir, name);
  const [program, ...args] = archiveCommand(target, binary, archive);
  const out = await new Deno.Command(program!, { args }).output();
  if (!out.success) throw new Error(`${program} failed`);
  return {
    name,
    bytes: await Deno.readFile(archive),
    sha256: await sha256File(archive),
  };
}

/** Waits until `path` exists (bounded: a hang fails the test). */
export async function waitForFile(
  path: string,
  what: string,
  limitMs = 90_000,
): Promise<string> {
  const deadline = Date.now() + limitMs;
  while (Date.now() < deadline) {
    try {
      return await Deno.readTextFile(path);
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`gave up waiting for ${what} (${path})`);
}

/** The names in a folder, sorted ([] when it does not exist). */
export async function listNames(dir: string): Promise<string[]> {
  const names: string[] = [];
  try {
    for await (const entry of Deno.readDir(dir)) names.push(entry.name);
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  return names.sort();
}
