/**
 * A cloned repository is hostile input. The suites `hostile_*_e2e_test.ts`
 * build git repositories whose `.claude` folder, config and transcripts an
 * attacker wrote (symlinks into a fake home, links to Claude Code's own
 * settings; hard links and FIFOs as an unpacked archive would hold them),
 * clone each into a temp folder, and run the hook and the commands there as
 * Claude Code would: under the release permission flags, with a secret in
 * the environment. Afterwards (`tests/support/hostile_attack.ts`): nothing
 * outside `.claude` changed (a byte compare of the whole tree, fake `~/.ssh`
 * included), no file inside `.claude` that stall-watch did not create
 * changed, the secret appears in no output and no file, no output holds a
 * raw control character, and nothing hung or crashed (exit 3).
 *
 * This file runs every planting against every command, and any mix of them;
 * the other files hold one attack surface each, a test per attack, named
 * for what is refused: links, config, state, transcripts, install.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import fc from "fast-check";
import { fuzzParameters } from "../support/fuzz.ts";
import { attack, EVERY_COMMAND } from "../support/hostile_attack.ts";
import { PLANTINGS } from "../support/hostile_plantings.ts";
import { HOSTILE_CLONES, skipWhere } from "../support/platform.ts";

for (const [key, planting] of Object.entries(PLANTINGS)) {
  Deno.test({
    ...skipWhere(
      `hostile clone: ${planting.name}: every command leaves everything but its own files alone`,
      HOSTILE_CLONES,
    ),
    fn: () =>
      attack(
        [planting],
        [...EVERY_COMMAND, "hook", "hook", "hook", "watch"],
        (c, results) => {
          if (key === "killSwitchSecret") {
            const lines = (results.get("hook") ?? []).map((r) => r.stderr).join(
              "",
            );
            assert.match(
              lines,
              /kill switch active \(env GITHUB_TOKEN \(set\)\)/,
            );
          }
          if (key === "stateDirIsClaude") {
            // Claude Code's settings were never taken for a session's state.
            const text = Deno.readTextFileSync(
              join(c.project, ".claude/settings.local.json"),
            );
            assert.ok(text.includes("sk-ant-planted"));
          }
        },
      ),
  });
}

Deno.test({
  ...skipWhere(
    "hostile clone: any mix of plantings and any command sequence keeps every promise (property)",
    HOSTILE_CLONES,
  ),
  fn: async () => {
    const keys = Object.keys(PLANTINGS).filter((k) => k !== "claudeToHome");
    await fc.assert(
      fc.asyncProperty(
        fc.subarray(keys, { minLength: 1, maxLength: 3 }),
        fc.array(fc.constantFrom(...EVERY_COMMAND), {
          minLength: 1,
          maxLength: 5,
        }),
        async (chosen, commands) => {
          // Later plantings of one path win, as in the repository they build.
          await attack(chosen.map((k) => PLANTINGS[k]!), commands);
        },
      ),
      // Each case clones a repository and starts up to five processes.
      { ...fuzzParameters(4), endOnFailure: true },
    );
  },
});

Deno.test({
  ...skipWhere(
    "hostile clone: the Claude Code hook, watcher and commands never write .codex, and Codex's door never writes .claude",
    HOSTILE_CLONES,
  ),
  fn: async () => {
    // The harness counts the other client's folder as outside: each run
    // checks it is byte for byte as cloned.
    await attack(
      [],
      EVERY_COMMAND.filter((name) => name !== "codex-stop"),
      (_c, results) => {
        assert.equal(results.get("hook")?.[0]?.code, 2, "the hook nudges");
      },
    );
    await attack([], ["codex-stop", "codex-stop"], (c, results) => {
      const runs = results.get("codex-stop") ?? [];
      assert.deepEqual(runs.map((r) => r.code), [2, 2]);
      assert.ok(
        Deno.statSync(join(c.project, ".codex/stall_watch/events.jsonl"))
          .isFile,
      );
    });
  },
});
