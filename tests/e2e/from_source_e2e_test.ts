/**
 * Run from source the way `install` registers it (`deno run --quiet
 * <release flags> main.ts`) and the way `deno install -g` wraps it, the
 * hook must be self-contained: nothing from the network (a fresh Deno
 * cache, no reachable registry), no test-only package fetched, nothing but
 * its report on stderr, and no need for the checkout's `deno.json`.
 */

import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import { HOOK_PERMISSION_FLAGS } from "../../src/shared/permissions.ts";
import { SOURCE_RUN_FLAGS } from "../../src/install/hook_command.ts";
import { FIXTURES_DIR } from "../support/cases.ts";
import { MAIN_TS } from "../support/hook_process.ts";
import { tempFixture, type TempProject } from "../support/temp_project.ts";
import { ON_WINDOWS, onWindows, skipWhere } from "../support/platform.ts";

const REPO = dirname(MAIN_TS);
const STALLED = join(FIXTURES_DIR, "pending_tool_use_split_lines.jsonl");
/** Every way Deno could reach a registry, pointed at a closed port. */
const NO_NETWORK = {
  NPM_CONFIG_REGISTRY: "http://127.0.0.1:9/",
  HTTPS_PROXY: "http://127.0.0.1:9",
  HTTP_PROXY: "http://127.0.0.1:9",
  ALL_PROXY: "http://127.0.0.1:9",
};

/** What a process needs from ours to start at all (Windows: SYSTEMROOT). */
function inherited(): Record<string, string> {
  const env: Record<string, string> = {};
  const names = ["PATH", "SYSTEMROOT", "TEMP", "TMP", "TMPDIR"];
  // The Windows lane's: see tests/support/hook_process.ts.
  for (const name of [...names, "DENO_DISABLE_NODE_SHIM"]) {
    const value = Deno.env.get(name);
    if (value !== undefined) env[name] = value;
  }
  return env;
}

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

async function run(
  program: string,
  args: string[],
  cwd: string,
  env: Record<string, string>,
  stdin = "",
): Promise<Run> {
  const child = new Deno.Command(program, {
    args,
    cwd,
    env: { ...inherited(), ...env },
    clearEnv: true,
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode(stdin));
  await writer.close();
  const output = await child.output();
  const text = new TextDecoder();
  return {
    code: output.code,
    stdout: text.decode(output.stdout),
    stderr: text.decode(output.stderr),
  };
}

/** A project with a config file (which loads the JSONC parser) and a fresh, empty Deno cache; disposal removes it. */
function offlineProject(): Promise<
  TempProject & { env: Record<string, string> }
> {
  return tempFixture(async (dir) => {
    await Deno.mkdir(join(dir, ".claude"), { recursive: true });
    await Deno.writeTextFile(
      join(dir, ".claude", "stall-watch.jsonc"),
      '{\n  // a comment, so the JSONC parser must run\n  "max_retries": 2,\n}\n',
    );
    const denoDir = join(dir, "deno-cache");
    await Deno.mkdir(denoDir);
    return {
      env: {
        ...NO_NETWORK,
        DENO_DIR: denoDir,
        HOME: dir,
        NO_COLOR: "1",
        STALL_WATCH_LAG_WAIT_MS: "0",
      },
    };
  });
}

function payload(cwd: string): string {
  return JSON.stringify({
    session_id: "offline",
    transcript_path: STALLED,
    cwd,
    hook_event_name: "Stop",
    stop_hook_active: false,
  });
}

async function npmCacheEntries(denoDir: string): Promise<string[]> {
  const found: string[] = [];
  const walk = async (dir: string, depth: number) => {
    for await (const entry of Deno.readDir(dir)) {
      if (entry.isDirectory && depth < 2) {
        await walk(join(dir, entry.name), depth + 1);
      } else if (depth === 2) found.push(entry.name);
    }
  };
  await walk(join(denoDir, "npm"), 0).catch(() => {});
  return found;
}

for (
  const [name, extra] of [
    ["with the checkout's deno.json", []],
    ["with --no-config (as deno install -g runs it)", ["--no-config"]],
  ] as const
) {
  Deno.test(`registered from source, the hook blocks offline on a fresh Deno cache with a config file, ${name}`, async () => {
    await using project = await offlineProject();
    const result = await run(
      Deno.execPath(),
      [
        "run",
        ...SOURCE_RUN_FLAGS,
        ...extra,
        ...HOOK_PERMISSION_FLAGS,
        MAIN_TS,
      ],
      project.dir,
      project.env,
      payload(project.dir),
    );
    assert.equal(result.code, 2, result.stderr);
    const lines = result.stderr.split("\n").filter((l) => l !== "");
    assert.match(lines[0] ?? "", /^stall_watch: 1 pending tool_use in /);
    assert.ok(!result.stderr.includes("\x1b"), "no colour codes");
    assert.doesNotMatch(
      result.stderr,
      /^(Download|Check|Warning|error|Initialize)\b/m,
      "nothing of Deno's own on the hook's stderr",
    );
    assert.deepEqual(
      await npmCacheEntries(project.env.DENO_DIR as string),
      [],
      "no npm package fetched (or tried)",
    );
  });
}

Deno.test("from source offline, install and doctor parse settings without the network", async () => {
  await using project = await offlineProject();
  const args = [
    "run",
    ...SOURCE_RUN_FLAGS,
    ...HOOK_PERMISSION_FLAGS,
    MAIN_TS,
  ];
  const install = await run(
    Deno.execPath(),
    [...args, "install"],
    project.dir,
    project.env,
  );
  assert.equal(install.code, 0, install.stderr);
  const settings = await Deno.readTextFile(
    join(project.dir, ".claude", "settings.local.json"),
  );
  // A shell command line on POSIX; on Windows exec form, the words in `args`.
  const registered = ON_WINDOWS
    ? ` ${JSON.parse(settings).hooks.Stop[0].hooks[0].args.join(" ")} `
    : settings;
  assert.ok(
    registered.includes(` run --quiet ${HOOK_PERMISSION_FLAGS.join(" ")} `),
    settings,
  );
  const doctor = await run(
    Deno.execPath(),
    [...args, "doctor"],
    project.dir,
    project.env,
  );
  assert.doesNotMatch(doctor.stdout + doctor.stderr, /npm|Download/);
  assert.match(doctor.stdout, /ok {4}config: .*stall-watch\.jsonc is valid/);
  assert.deepEqual(await npmCacheEntries(project.env.DENO_DIR as string), []);
});

/** The `deno install -g` line of the README, run as written but into a temporary root. */
Deno.test({
  ...skipWhere(
    "the README's deno install -g command gives a working stall-watch",
    onWindows("runs the sh wrapper deno install writes here (a .cmd there)"),
  ),
  fn: async () => {
    const readme = await Deno.readTextFile(join(REPO, "README.md"));
    const line = readme.split("\n").map((l) => l.trim()).find((l) =>
      l.startsWith("deno install -g ")
    );
    assert.ok(line, "README documents deno install -g");
    const words = line.split(/\s+/);
    assert.deepEqual(
      words.filter((w) => /^--(allow|deny|no-prompt)/.test(w)),
      [...HOOK_PERMISSION_FLAGS],
      "the README's command has exactly the release permissions",
    );
    await using project = await offlineProject();
    const root = join(project.dir, "deno-root");
    const env = {
      ...project.env,
      DENO_INSTALL_ROOT: root,
      PATH: `${dirname(Deno.execPath())}:${Deno.env.get("PATH") ?? ""}`,
    };
    const installed = await run(
      Deno.execPath(),
      words.slice(1),
      REPO,
      env,
    );
    assert.equal(installed.code, 0, installed.stderr);
    const bin = join(root, "bin", "stall-watch");
    const version = await run(bin, ["--version"], project.dir, env);
    assert.match(version.stdout, /^stall-watch \d+\.\d+\.\d+/);
    const hook = await run(bin, [], project.dir, env, payload(project.dir));
    assert.equal(hook.code, 2, hook.stderr);
    assert.match(hook.stderr, /^stall_watch: 1 pending tool_use in /);
    const install = await run(bin, ["install"], project.dir, env);
    assert.equal(install.code, 0, install.stderr);
    const settings = await Deno.readTextFile(
      join(project.dir, ".claude", "settings.local.json"),
    );
    assert.ok(settings.includes(MAIN_TS), settings);
    assert.deepEqual(
      await npmCacheEntries(project.env.DENO_DIR as string),
      [],
    );
  },
});
