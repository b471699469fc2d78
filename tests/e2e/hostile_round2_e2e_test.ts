/**
 * Hostile repositories, round 2: what a second review found a cloned
 * repository (or a tool that may write only inside the project) could do
 * to stall-watch, each run through the hook or a command as Claude Code or
 * a user would run it, under the release permission flags. Each test fails
 * on the code before its fix for its own reason.
 *
 * - A committed config of 97,000 unknown keys on one line, and a payload
 *   of `background_tasks` nested in `background_tasks`, cost one pass, not
 *   one pass per problem or key. (That each is one pass is shown, without
 *   timing, by the read counts in `tests/settings/config_problems_test.ts`
 *   and `tests/hook/nested_cut_test.ts`; here the commands run on them.)
 * - A state folder swapped for a symlink while the hook waits for the
 *   session lock is refused after the wait, not written through (the
 *   in-process tests of every confined write are in
 *   `tests/confined/folder_swap_test.ts`).
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { spawnStallWatch } from "../support/hook_process.ts";
import { linesOf, runBounded, withSandbox } from "../support/sandbox.ts";
import { pendingTranscript, stopPayload } from "../support/transcripts.ts";

const POSIX = Deno.build.os !== "windows";
/** `/proc/<pid>/fd` shows which files a process has open. */
const LINUX = Deno.build.os === "linux";

/**
 * A hang guard for runs that parse a megabyte: about a second of work, which
 * a machine at load 10 may stretch well past the usual 15 s.
 */
const SLOW_MACHINE_MS = 120_000;

/** `{"k0":1,"k1":1,...}` of `bytes` characters on one line: every key unknown. */
function unknownKeysConfig(bytes: number): { text: string; keys: number } {
  const parts: string[] = [];
  let size = 2;
  while (size + 12 < bytes) {
    const part = `"k${parts.length}":1`;
    parts.push(part);
    size += part.length + 1;
  }
  return { text: `{${parts.join(",")}}`, keys: parts.length };
}

Deno.test({
  name:
    "hostile clone, item 11: a 1 MB config of 97,000 unknown keys on one line costs one pass, and its problems are capped with a count of the rest",
  ignore: !POSIX,
  fn: () =>
    withSandbox(async (s) => {
      const { text, keys } = unknownKeysConfig(1024 * 1024 - 64);
      assert.ok(keys > 95_000, `${keys} keys`);
      await Deno.mkdir(join(s.project, ".claude"));
      await Deno.writeTextFile(
        join(s.project, ".claude/stall-watch.jsonc"),
        text,
      );
      await Deno.writeTextFile(s.transcript, pendingTranscript("toolu_cfg"));
      const before = await s.snapshotOutsideClaude();
      const hook = await runBounded({
        cwd: s.project,
        stdin: stopPayload("cfg", s.transcript, s.project),
        env: { STALL_WATCH_OUTPUT: "json" },
      }, SLOW_MACHINE_MS);
      assert.equal(hook.code, 0, hook.stderr);
      const notice = JSON.parse(linesOf(hook.stdout).at(-1)!).systemMessage;
      assert.match(notice, /unknown key "k0"/);
      assert.match(
        notice,
        new RegExp(`${(keys - 10).toLocaleString("en-US")} more problems`),
      );
      const doctor = await runBounded(
        { cwd: s.project, args: ["doctor"] },
        SLOW_MACHINE_MS,
      );
      const listed = linesOf(doctor.stdout).filter((l) =>
        l.includes("unknown key")
      );
      assert.equal(listed.length, 10, doctor.stdout);
      assert.match(doctor.stdout, /more problems not listed/);
      assert.deepEqual(await s.snapshotOutsideClaude(), before);
    }),
});

/** A Stop payload whose `background_tasks` nest `depth` deep, each list short. */
function nestedTasksPayload(transcript: string, cwd: string, depth: number) {
  const open = '{"id":"t","type":"shell","status":"running",' +
    '"background_tasks":[';
  const payload = JSON.stringify(stopPayload("nested", transcript, cwd));
  return `${payload.slice(0, -1)},"background_tasks":[${open.repeat(depth)}${
    "]}".repeat(depth)
  }]}`;
}

Deno.test({
  name:
    "hostile payload, item 12: 2.4 MB of background_tasks nested in background_tasks costs the hook one pass",
  ignore: !POSIX,
  fn: () =>
    withSandbox(async (s) => {
      await Deno.writeTextFile(s.transcript, pendingTranscript("toolu_nest"));
      const stdin = nestedTasksPayload(s.transcript, s.project, 36_000);
      assert.ok(stdin.length > 2_300_000, `${stdin.length} characters`);
      JSON.parse(stdin); // valid JSON, so the hook must judge it
      const hook = await runBounded({ cwd: s.project, stdin }, SLOW_MACHINE_MS);
      assert.equal(hook.code, 2, hook.stderr);
      assert.match(hook.stderr, /pending tool_use/);
    }),
});

/**
 * Polls `/proc/<pid>/fd` until process `pid` has the file `path` open, then
 * exits 0 (1 when the process ended first). Run by `deno eval`, which may
 * read `/proc` (the test's own permissions may not).
 */
const UNTIL_OPEN = `
const [pid, path] = Deno.args;
for (;;) {
  let entries;
  try {
    entries = [...Deno.readDirSync(\`/proc/\${pid}/fd\`)];
  } catch {
    Deno.exit(1);
  }
  for (const entry of entries) {
    try {
      if (Deno.readLinkSync(\`/proc/\${pid}/fd/\${entry.name}\`) === path) Deno.exit(0);
    } catch {
      // closed meanwhile
    }
  }
  await new Promise((resolve) => setTimeout(resolve, 1));
}
`;

/** Waits until process `pid` has `path` open: it reached the lock wait. */
async function untilOpen(pid: number, path: string): Promise<void> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["eval", UNTIL_OPEN, String(pid), path],
    stdout: "null",
    stderr: "inherit",
  }).output();
  assert.ok(out.success, `process ${pid} ended before it opened ${path}`);
}

Deno.test({
  name:
    "hostile clone, item 13: a state folder swapped for a symlink while the hook waits for the session lock is refused after the wait",
  ignore: !LINUX,
  fn: () =>
    withSandbox(async (s) => {
      await Deno.writeTextFile(s.transcript, pendingTranscript("toolu_swap"));
      const folder = join(s.project, ".claude/stall_watch");
      await Deno.mkdir(folder, { recursive: true });
      const lockPath = join(folder, "swap.lock");
      const holder = await Deno.open(lockPath, { create: true, write: true });
      await holder.lock(true);
      const before = await s.snapshotOutsideClaude();
      const hook = await spawnStallWatch({
        cwd: s.project,
        stdin: stopPayload("swap", s.transcript, s.project),
      });
      try {
        // The hook has checked the folder and opened the lock: it waits.
        await untilOpen(hook.pid, lockPath);
        await Deno.rename(folder, `${folder}.checked`);
        await Deno.symlink(s.outside, folder);
      } finally {
        await holder.unlock();
        holder.close();
      }
      const result = await hook.finished;
      assert.deepEqual(
        await s.snapshotOutsideClaude(),
        before,
        "the hook wrote through the swapped folder",
      );
      assert.equal(result.code, 0, result.stderr);
      assert.match(
        result.stderr,
        /^stall_watch: cannot use session state \(Refusing lock file in ".*stall_watch": .*stall_watch was replaced after stall-watch checked it\); allowing the stop/,
      );
      assert.equal(linesOf(result.stderr).length, 1, result.stderr);
    }),
});
