/**
 * Runs commands in a hostile clone ({@link cloneWith}) as Claude Code or a
 * user would, under the release permission flags with a secret in the
 * environment, and checks the promises a clone must not break: nothing
 * outside `.claude` changed, no planted file inside it changed, no secret
 * printed or written, no raw control character printed, no crash, no hang.
 *
 * @module
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import type { ProcessResult, RunOptions } from "./hook_process.ts";
import {
  type Clone,
  cloneWith,
  CODEX_TURN,
  HOSTILE_NAME,
  type Planting,
  SECRET,
  SESSION,
  WATCHED,
} from "./hostile_clone.ts";
import { runBounded } from "./sandbox.ts";
import { tempProject } from "./temp_project.ts";
import { snapshotTree, type TreeSnapshot } from "./tree_snapshot.ts";
import { HOSTILE_CLONES, skipWhere } from "./platform.ts";

/** The hook and every command, as Claude Code or a user would run them in the clone. */
export const COMMANDS: Record<string, (c: Clone) => RunOptions> = {
  hook: (c) => ({
    cwd: c.project,
    stdin: {
      session_id: SESSION,
      transcript_path: c.transcript,
      cwd: c.project,
      hook_event_name: "Stop",
      stop_hook_active: false,
    },
  }),
  "hook settings.local": (c) => ({
    ...COMMANDS.hook!(c),
    stdin: {
      session_id: "settings.local",
      transcript_path: c.transcript,
      cwd: c.project,
      hook_event_name: "Stop",
      stop_hook_active: false,
    },
  }),
  watch: (c) => ({
    cwd: c.project,
    args: ["watch"],
    stdin: {
      session_id: SESSION,
      transcript_path: c.transcript,
      cwd: c.project,
      hook_event_name: "PostToolUse",
      tool_name: HOSTILE_NAME,
      tool_input: {},
      tool_response: {},
      tool_use_id: WATCHED,
    },
  }),
  "codex-stop": (c) => ({
    cwd: c.project,
    args: ["codex-stop"],
    stdin: {
      session_id: SESSION,
      turn_id: CODEX_TURN,
      transcript_path: c.rollout,
      cwd: c.project,
      hook_event_name: "Stop",
      model: "gpt-5",
      permission_mode: "default",
      stop_hook_active: false,
      last_assistant_message: null,
    },
  }),
  scan: (c) => ({ cwd: c.project, args: ["scan", c.transcript] }),
  "scan --all-turns": (c) => ({
    cwd: c.project,
    args: ["scan", "--all-turns", c.transcript],
  }),
  audit: (c) => ({
    cwd: c.project,
    args: ["audit", join(c.project, "transcripts")],
  }),
  log: (c) => ({ cwd: c.project, args: ["log"] }),
  statusline: (c) => ({
    cwd: c.project,
    args: ["statusline"],
    stdin: {
      session_id: SESSION,
      transcript_path: c.transcript,
      cwd: c.project,
      version: "2.1.332",
    },
  }),
  reset: (c) => ({ cwd: c.project, args: ["reset", "--all"] }),
  install: (c) => ({ cwd: c.project, args: ["install"] }),
  uninstall: (c) => ({ cwd: c.project, args: ["uninstall"] }),
  doctor: (c) => ({ cwd: c.project, args: ["doctor"] }),
};

/** Commands whose job is to edit this settings file. */
const EDITS_SETTINGS = new Set(["install", "uninstall"]);

/**
 * Characters a terminal acts on or a reader cannot see (newline and tab
 * are plain text): controls, format characters (bidi, zero-width, TAGs),
 * private use, unassigned, lone surrogates, line and paragraph separators,
 * default-ignorable code points (variation selectors).
 */
const RAW_CONTROL =
  /(?![\n\t])[\p{Cc}\p{Cf}\p{Co}\p{Cn}\p{Cs}\p{Zl}\p{Zp}\p{Default_Ignorable_Code_Point}]/u;

/**
 * Deno's own cache folder. Run from source, the runtime caches compiled
 * modules under `$HOME` unless told where: that is Deno's write, not
 * stall-watch's, and a compiled binary makes none.
 */
export const DENO_DIR: string = Deno.env.get("DENO_DIR") ??
  JSON.parse(
    new TextDecoder().decode(
      new Deno.Command(Deno.execPath(), { args: ["info", "--json"] })
        .outputSync().stdout,
    ),
  ).denoDir as string;

/** Runs `name` in the clone with a secret in the environment and checks its output. */
async function run(
  c: Clone,
  name: string,
  env: Record<string, string> = {},
): Promise<ProcessResult> {
  const options = COMMANDS[name]!(c);
  const result = await runBounded({
    ...options,
    env: {
      HOME: c.home,
      DENO_DIR,
      GITHUB_TOKEN: SECRET,
      ...(options.env ?? {}),
      ...env,
    },
  });
  const output = result.stdout + result.stderr;
  assert.notEqual(result.code, 3, `${name} crashed: ${result.stderr}`);
  assert.ok(!output.includes(SECRET), `${name} printed the secret: ${output}`);
  assert.ok(
    !RAW_CONTROL.test(output),
    `${name} emitted a control character: ${JSON.stringify(output)}`,
  );
  assert.ok(
    !output.split("\n").some((l) =>
      l.startsWith("- [pending_tool_use] FORGED")
    ),
    `${name} let a tool name forge a line: ${output}`,
  );
  return result;
}

/** Every file below `root` that holds `needle` (symlinks not followed). */
async function filesHolding(root: string, needle: string): Promise<string[]> {
  const found: string[] = [];
  for (const [path, kind] of await snapshotTree(root)) {
    if (!kind.startsWith("file ")) continue;
    const text = await Deno.readTextFile(join(root, path)).catch(() => "");
    if (text.includes(needle)) found.push(path);
  }
  return found;
}

/** The commands that are Codex's: they write in `.codex`, the rest in `.claude`. */
const CODEX_COMMANDS = new Set(["codex-stop"]);

/**
 * Whether a path of the clone lies in a folder `commands` may write: the
 * Codex door's `.codex`, every other command's `.claude`. The other one
 * counts as outside: the Claude Code hook never writes `.codex`, nor
 * Codex's door `.claude`.
 */
function writableBy(commands: readonly string[]): (rel: string) => boolean {
  const folders = [
    ...(commands.some((n) => !CODEX_COMMANDS.has(n))
      ? ["project/.claude"]
      : []),
    ...(commands.some((n) => CODEX_COMMANDS.has(n)) ? ["project/.codex"] : []),
  ];
  return (rel) => folders.some((f) => rel === f || rel.startsWith(`${f}/`));
}

/**
 * Runs `commands` in a clone with `plantings` and checks the promises:
 * nothing outside the client folders they write (`.claude`; `.codex` for
 * Codex's door) changed, no planted file inside them changed (but the
 * settings file install and uninstall exist to edit), no secret in any
 * file. `env` is added to every command's environment (the operator's, or
 * what the repository's settings would set).
 */
export async function attack(
  plantings: Planting[],
  commands: string[],
  check: (
    c: Clone,
    results: Map<string, ProcessResult[]>,
  ) => Promise<void> | void = () => {},
  toolName = HOSTILE_NAME,
  env: (c: Clone) => Record<string, string> = () => ({}),
): Promise<void> {
  await using temp = await tempProject("stall-watch-hostile-");
  const root = temp.dir;
  const c = await cloneWith(root, plantings, toolName);
  const writable = writableBy(commands);
  const outside = await snapshotTree(root, writable);
  const planted = await writableSnapshot(root, writable);
  const results = new Map<string, ProcessResult[]>();
  for (const name of commands) {
    const result = await run(c, name, env(c));
    results.set(name, [...(results.get(name) ?? []), result]);
  }
  assert.deepEqual(
    await snapshotTree(root, writable),
    outside,
    "outside the folders the commands write",
  );
  const after = await writableSnapshot(root, writable);
  const edited = commands.some((n) => EDITS_SETTINGS.has(n));
  const now = whereNow(planted, after);
  for (const [path, kind] of planted) {
    if (edited && path === "project/.claude/settings.local.json") continue;
    assert.equal(after.get(now(path)), kind, `planted ${path} changed`);
  }
  assert.deepEqual(
    await filesHolding(root, SECRET),
    [],
    "files holding the secret",
  );
  await check(c, results);
}

/**
 * Where each planted entry is now: where it was, or, when stall-watch moved
 * it aside (a session's unusable state or lock file, renamed to
 * `<name>.quarantined-<n>` in the same folder, a fresh one taking its
 * name), there, unchanged, with everything below it.
 */
function whereNow(
  planted: TreeSnapshot,
  after: TreeSnapshot,
): (path: string) => string {
  const moves = new Map<string, string>();
  for (const [path, kind] of planted) {
    // Unchanged, or changed in place (the check below says so).
    if (after.get(path) === kind) continue;
    const aside = [...after.keys()].find((other) =>
      other.startsWith(`${path}.quarantined-`) &&
      /^\d+$/.test(other.slice(`${path}.quarantined-`.length)) &&
      after.get(other) === kind && ![...moves.values()].includes(other)
    );
    if (aside !== undefined) moves.set(path, aside);
  }
  return (path) => {
    for (const [from, to] of moves) {
      if (path === from) return to;
      if (path.startsWith(`${from}/`)) return to + path.slice(from.length);
    }
    return path;
  };
}

/** What is inside the folders the commands write (not following a symlinked one). */
async function writableSnapshot(
  root: string,
  writable: (rel: string) => boolean,
): Promise<TreeSnapshot> {
  const all = await snapshotTree(root);
  return new Map([...all].filter(([path]) => writable(path)));
}

/** The names of {@link COMMANDS}. */
export const EVERY_COMMAND: string[] = Object.keys(COMMANDS);

/** The attack surfaces the hostile suites are grouped by, one file each. */
export type Surface =
  | "links"
  | "config"
  | "state"
  | "transcripts"
  | "install";

/**
 * Registers one attack as a test named `hostile clone, <surface>: <what
 * is refused>` (POSIX only: links, FIFOs and modes), with a plain tool name
 * (`Read`), so it fails on the code before its fix for its own reason, not
 * for the escaping of tool names.
 */
export function attackTest(
  surface: Surface,
  name: string,
  plantings: Planting[],
  commands: string[],
  check: Parameters<typeof attack>[2] = () => {},
): void {
  Deno.test({
    ...skipWhere(`hostile clone, ${surface}: ${name}`, HOSTILE_CLONES),
    fn: () => attack(plantings, commands, check, "Read"),
  });
}
