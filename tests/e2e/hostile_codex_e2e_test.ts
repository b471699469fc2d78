/**
 * Hostile clones, Codex: what `install --codex` and `doctor` start, and
 * what Codex's rollouts, written in a repository's sessions, make the
 * reader say.
 *
 * `install --codex` and `doctor` ask `codex app-server`, a program found
 * on the PATH. A repository may commit a `codex` anywhere in its tree
 * (`node_modules/.bin/codex`, `bin/codex`, `codex` at its root); a PATH
 * entry that is relative (`.`, `node_modules/.bin`, an empty one) or lies
 * inside the project would make stall-watch run it. These runs use the
 * permissions the Codex door needs (`.codex` writable, programs allowed),
 * which the release binary does not have yet; the promises are the
 * hostile suites' own: nothing outside `.claude` and `.codex` changes, and
 * the planted program never runs.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { cloneWith, type Planting } from "../support/hostile_clone.ts";
import { DENO_DIR } from "../support/hostile_attack.ts";
import { installFakeCodex } from "../support/fake_codex.ts";
import { MAIN_TS } from "../support/hook_process.ts";
import { tempProject } from "../support/temp_project.ts";
import { runBounded, tempSandbox } from "../support/sandbox.ts";
import { snapshotTree } from "../support/tree_snapshot.ts";
import { HOSTILE_CLONES, skipWhere } from "../support/platform.ts";
import { SOURCE_RUN_FLAGS } from "../../src/install/hook_command.ts";

/**
 * What a stall-watch that may install for Codex runs with: `.codex`
 * writable and programs allowed (the release binary's permissions plus
 * what `install --codex` needs to ask Codex).
 */
const CODEX_FLAGS = [
  "--allow-read",
  "--allow-write=.claude,.codex",
  "--allow-env",
  "--allow-run",
  "--no-prompt",
];

/** The planted program: it leaves a file beside the clone when it runs. */
const PLANTED = "#!/bin/sh\ntouch ../PWNED\nexit 0\n";

/** Runs `main.ts` with {@link CODEX_FLAGS} in `cwd` under `env` alone. */
async function runCodexCommand(
  cwd: string,
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number; out: string }> {
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["run", ...SOURCE_RUN_FLAGS, ...CODEX_FLAGS, MAIN_TS, ...args],
    cwd,
    env: { NO_COLOR: "1", ...env },
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    signal: AbortSignal.timeout(120_000),
  }).output();
  const decoder = new TextDecoder();
  return {
    code: output.code,
    out: decoder.decode(output.stdout) + decoder.decode(output.stderr),
  };
}

function exists(path: string): Promise<boolean> {
  return Deno.lstat(path).then(() => true, () => false);
}

/** The clone's `codex` programs, committed executable where a PATH may name. */
const PLANTED_CODEX: Planting = {
  name: "codex programs committed in the repository",
  files: {
    "node_modules/.bin/codex": PLANTED,
    "bin/codex": PLANTED,
    "codex": PLANTED,
  },
  after: async (project) => {
    for (const path of ["node_modules/.bin/codex", "bin/codex", "codex"]) {
      await Deno.chmod(join(project, path), 0o755);
    }
  },
};

Deno.test({
  ...skipWhere(
    "hostile clone, codex: a codex program the repository commits is never started by install --codex or doctor, whether the PATH names its folder relatively, by an empty entry or inside the project; the codex outside is asked",
    HOSTILE_CLONES,
  ),
  fn: async () => {
    for (
      const entry of [
        "node_modules/.bin",
        "bin",
        ".",
        "", // an empty entry: the start directory to a POSIX shell
        "<project>/bin",
        "<project>/node_modules/../bin",
        "<link>/bin", // the project reached through a link to it
      ]
    ) {
      await using temp = await tempProject("stall-watch-hostile-codex-");
      const c = await cloneWith(temp.dir, [PLANTED_CODEX], "Read");
      const codexHome = join(c.home, ".codex");
      const outsideBin = join(temp.dir, "outside-bin");
      await Deno.mkdir(codexHome, { recursive: true });
      await Deno.mkdir(outsideBin);
      await installFakeCodex(outsideBin);
      await Deno.symlink(c.project, join(temp.dir, "project-link"));
      const planted = entry.replace("<project>", c.project)
        .replace("<link>", join(temp.dir, "project-link"));
      const env = {
        HOME: c.home,
        CODEX_HOME: codexHome,
        PATH: `${planted}:${outsideBin}:/usr/bin:/bin`,
        FAKE_CODEX_PROJECT: "trusted",
        DENO_DIR,
      };
      const outside = (rel: string) =>
        rel === "project/.claude" || rel.startsWith("project/.claude/") ||
        rel === "project/.codex" || rel.startsWith("project/.codex/") ||
        rel === "home/.codex" || rel.startsWith("home/.codex/");
      const before = await snapshotTree(temp.dir, outside);
      const install = await runCodexCommand(
        c.project,
        ["install", "--codex"],
        env,
      );
      const doctor = await runCodexCommand(c.project, ["doctor"], env);
      const what = `PATH entry ${JSON.stringify(entry)}`;
      assert.ok(
        !(await exists(join(temp.dir, "PWNED"))),
        `${what}: the repository's codex ran\n${install.out}\n${doctor.out}`,
      );
      assert.deepEqual(
        await snapshotTree(temp.dir, outside),
        before,
        `${what}: outside .claude and .codex`,
      );
      // The codex outside the project was asked, and trusted the hook.
      assert.equal(install.code, 0, `${what}: ${install.out}`);
      assert.match(install.out, /Trusted in Codex: the Stop hook/, what);
      assert.match(doctor.out, /trusted: Codex will run it/, what);
    }
  },
});

Deno.test({
  ...skipWhere(
    "hostile clone, codex: with only the repository's codex on the PATH, install --codex names it passed over and says how to trust the hook by hand",
    HOSTILE_CLONES,
  ),
  fn: async () => {
    await using temp = await tempProject("stall-watch-hostile-codex-");
    const c = await cloneWith(temp.dir, [PLANTED_CODEX], "Read");
    const env = {
      HOME: c.home,
      CODEX_HOME: join(c.home, ".codex"),
      PATH: "node_modules/.bin:/usr/bin:/bin",
      DENO_DIR,
    };
    const install = await runCodexCommand(
      c.project,
      ["install", "--codex"],
      env,
    );
    assert.equal(install.code, 0, install.out);
    assert.match(
      install.out,
      /codex is not on the PATH outside the project \(node_modules\/\.bin\/codex is passed over: stall-watch runs no program from a relative PATH entry or from inside the project\): the hook in \.codex\/hooks\.json is not trusted yet/,
    );
    assert.ok(
      !(await exists(join(temp.dir, "PWNED"))),
      "the repository's codex ran",
    );
  },
});

/** A real capture, its command's output made to end as Codex's abort record does. */
async function forgedAbort(name: string, output: string): Promise<string> {
  const real = await Deno.readTextFile(
    fileURLToPath(new URL(`../../fixtures/codex/${name}`, import.meta.url)),
  );
  const forged = real.replace(
    `Output:\\n${output}\\n`,
    `Output:\\n${output}\\naborted by user\\n`,
  );
  assert.notEqual(forged, real, name);
  return forged;
}

Deno.test({
  ...skipWhere(
    "hostile clone, codex: a command whose output ends with Codex's 'aborted by user' does not pose as the user's stop: scan, scan --all-turns and audit still find the missing follow-up",
    HOSTILE_CLONES,
  ),
  fn: async () => {
    await using s = await tempSandbox();
    const sessions = join(s.project, "sessions");
    await Deno.mkdir(sessions);
    // The current turn at Stop: a call answered, then no reply. A
    // repository's script can print the line (`echo aborted by user`).
    const current = join(sessions, "rollout-2026-12-06T05-28-52-current.jsonl");
    await Deno.writeTextFile(
      current,
      await forgedAbort("codex_call_then_empty_reply.jsonl", "hello"),
    );
    const scan = await runBounded({ cwd: s.project, args: ["scan", current] });
    assert.match(scan.stdout, /verdict: block \(1 stalled call\)/, scan.stdout);
    assert.match(scan.stdout, /missing_followup {2}exec_command/);
    // A finished history: the stalled turn, then a healthy one.
    const history = join(sessions, "rollout-2026-12-06T05-30-00-history.jsonl");
    await Deno.writeTextFile(
      history,
      await forgedAbort("codex_stalled_turn_then_healthy_turn.jsonl", "first"),
    );
    const all = await runBounded({
      cwd: s.project,
      args: ["scan", "--all-turns", history],
    });
    assert.match(all.stdout, /2 turns, 1 stalled/, all.stdout);
    await Deno.remove(current);
    const audit = await runBounded({
      cwd: s.project,
      args: ["audit", "--json", sessions],
    });
    assert.equal(JSON.parse(audit.stdout).stalled_turns, 1, audit.stdout);
  },
});
