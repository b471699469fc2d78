/**
 * `stall-watch reset`: clears a session's retries and cooldown under its
 * lock, leaves foreign files alone, never writes outside `.claude`.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { main } from "../../src/cli.ts";
import { withFileLock } from "../../src/confined/file_lock.ts";
import { ensureConfinedDir } from "../../src/confined/confine.ts";
import { StateStore } from "../../src/guardrails/state.ts";
import { fakeIO } from "../support/fake_io.ts";
import { runStallWatch } from "../support/hook_process.ts";
import { tempProject } from "../support/temp_project.ts";
import { PLANTS_POSIX_LINKS, skipWhere } from "../support/platform.ts";

const STATE = ".claude/stall_watch";
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

async function cli(args: string[], cwd: string, realSleep = false) {
  const io = fakeIO({ cwd });
  const code = await main(args, realSleep ? { ...io, sleep } : io);
  return { code, stdout: io.stdout.join(""), stderr: io.stderr.join("") };
}

/** Gives a session state the way the hook does. */
async function seed(
  cwd: string,
  session: string,
  retries: Record<string, number>,
  at = 0,
) {
  const store = new StateStore({ cwd, stateDir: STATE, sleep });
  await store.update(session, ({ state }) => ({
    state: { ...state, retries, lastRecoveryAt: at },
    result: null,
  }));
}

const names = (dir: string) =>
  [...Deno.readDirSync(dir)].map((e) => e.name).sort();

Deno.test("reset SESSION_ID removes that session's retries and cooldown and says what they were", async () => {
  await using project = await tempProject();
  const dir = project.dir;
  await seed(dir, "s1", { toolu_a: 3, toolu_b: 1 }, 1_790_000_000);
  await seed(dir, "s2", { toolu_c: 1 });
  const { code, stdout } = await cli(["reset", "s1"], dir);
  assert.equal(code, 0);
  assert.equal(
    stdout,
    "removed s1: 4 retries on 2 calls (toolu_a 3, toolu_b 1), last recovery 2026-09-21T14:13:20Z\n",
  );
  assert.deepEqual(names(join(dir, STATE)), [
    ".gitignore",
    "s1.lock",
    "s2.json",
    "s2.lock",
  ]);
  const again = await cli(["reset", "s1"], dir);
  assert.equal(again.code, 0);
  assert.equal(
    again.stdout,
    "nothing to reset: no state for session s1 (stall-watch reset --list shows the sessions)\n",
  );
  // The hook starts from an empty budget again.
  const store = new StateStore({ cwd: dir, stateDir: STATE, sleep });
  assert.deepEqual((store.read("s1")).state.retries, {});
  assert.deepEqual((store.read("s2")).state.retries, { toolu_c: 1 });
});

Deno.test("reset --list shows every session's state and removes nothing", async () => {
  await using project = await tempProject();
  const dir = project.dir;
  const empty = await cli(["reset", "--list"], dir);
  assert.equal(empty.code, 0);
  assert.equal(empty.stdout, `no session state in ${STATE}\n`);
  await seed(dir, "s1", { toolu_a: 3, toolu_b: 1 }, 1_790_000_000);
  await seed(dir, "s2", { toolu_c: 1 });
  const before = names(join(dir, STATE));
  const { code, stdout } = await cli(["reset", "--list"], dir);
  assert.equal(code, 0);
  assert.deepEqual(stdout.split("\n"), [
    "s1: 4 retries on 2 calls (toolu_a 3, toolu_b 1), last recovery 2026-09-21T14:13:20Z",
    "s2: 1 retry on 1 call (toolu_c 1)",
    `2 sessions in ${STATE}; "stall-watch reset <SESSION_ID>" or "--all" clears them`,
    "",
  ]);
  assert.deepEqual(names(join(dir, STATE)), before);
});

Deno.test("reset --all removes every session state and leaves foreign files alone", async () => {
  await using project = await tempProject();
  const dir = project.dir;
  await seed(dir, "s1", { toolu_a: 1 });
  await seed(dir, "s2", {});
  const state = join(dir, STATE);
  await Deno.writeTextFile(join(state, "settings.json"), '{"hooks": {}}\n');
  await Deno.writeTextFile(join(state, "events.jsonl"), "");
  const { code, stdout } = await cli(["reset", "--all"], dir);
  assert.equal(code, 0);
  assert.equal(
    stdout,
    "removed s1: 1 retry on 1 call (toolu_a 1)\n" +
      "removed s2: no retries\n" +
      "left settings.json: not a stall-watch state file\n" +
      "reset 2 sessions in .claude/stall_watch\n",
  );
  assert.deepEqual(names(state), [
    ".gitignore",
    "events.jsonl",
    "s1.lock",
    "s2.lock",
    "settings.json",
  ]);
  const none = await cli(["reset", "--all"], dir);
  assert.match(
    none.stdout,
    /nothing to reset: no session state in \.claude\/stall_watch\n$/,
  );
});

Deno.test("reset with no state folder creates nothing", async () => {
  await using project = await tempProject();
  const dir = project.dir;
  assert.equal((await cli(["reset", "s1"], dir)).code, 0);
  assert.equal((await cli(["reset", "--all"], dir)).code, 0);
  assert.deepEqual(names(dir), []);
});

Deno.test("reset waits for the session lock a hook holds", async () => {
  await using project = await tempProject();
  const dir = project.dir;
  await seed(dir, "s1", { toolu_a: 2 });
  const stateDir = ensureConfinedDir(dir, STATE, "state folder");
  let released = false;
  let resetDone = false;
  let resetting: Promise<unknown> = Promise.resolve();
  await withFileLock(
    stateDir,
    "s1.lock",
    { timeoutMs: 1000, sleep },
    async () => {
      resetting = cli(["reset", "s1"], dir, true).then((r) => {
        resetDone = true;
        assert.ok(released, "reset finished while the lock was held");
        return r;
      });
      await sleep(150);
      assert.equal(resetDone, false);
      released = true;
    },
  );
  const result = await resetting as { code: number; stdout: string };
  assert.equal(result.code, 0);
  assert.match(result.stdout, /^removed s1: 2 retries/);
});

Deno.test(
  skipWhere(
    "reset refuses a state folder that leads outside .claude",
    PLANTS_POSIX_LINKS,
  ),
  async () => {
    await using project = await tempProject();
    await using elsewhere = await tempProject();
    const dir = project.dir;
    const outside = elsewhere.dir;
    await Deno.writeTextFile(
      join(outside, "s1.json"),
      '{"retries":{"toolu_a":1}}',
    );
    await Deno.mkdir(join(dir, ".claude"));
    await Deno.symlink(outside, join(dir, STATE));
    const { code, stdout, stderr } = await cli(["reset", "s1"], dir);
    assert.equal(code, 1);
    assert.equal(stdout, "");
    assert.match(
      stderr,
      /^stall-watch: Refusing state folder .+ symlink .+outside/,
    );
    assert.deepEqual(names(outside), ["s1.json"]);
  },
);

Deno.test("reset usage errors exit 64 with one line", async () => {
  await using project = await tempProject();
  const dir = project.dir;
  for (
    const args of [
      ["reset"],
      ["reset", "s1", "--all"],
      ["reset", "a", "b"],
      ["reset", "--force"],
      ["reset", "--list", "--all"],
      ["reset", "s1", "--list"],
    ]
  ) {
    const { code, stderr } = await cli(args, dir);
    assert.equal(code, 64, args.join(" "));
    assert.equal(stderr.split("\n").length, 2, stderr);
  }
});

Deno.test("reset as a process under the release permissions", async () => {
  await using project = await tempProject();
  const dir = project.dir;
  await seed(dir, "abc-123", { toolu_x: 2 });
  const result = await runStallWatch({
    cwd: dir,
    args: ["reset", "abc-123"],
  });
  assert.equal(result.code, 0, result.stderr);
  assert.match(
    result.stdout,
    /^removed abc-123: 2 retries on 1 call \(toolu_x 2\)\n$/,
  );
  assert.deepEqual(names(join(dir, STATE)), [".gitignore", "abc-123.lock"]);
});
