/**
 * Hostile clones, state: what a repository can plant in stall-watch's state
 * folder and event log, or name its tool calls, to spend or corrupt a
 * session's retry budget. Tool-use ids named like `Object.prototype`
 * members count like any other; a state folder that is `.claude` itself
 * leaves Claude Code's files alone; a huge log is summarised, not a crash.
 *
 * Self-healing state: a session's state or lock file that stall-watch
 * cannot use (corrupt, a symlink, a hard link, a FIFO, a folder) is moved
 * aside inside the state folder, the session starts afresh, a
 * `state_quarantined` event is logged and one line says so (before, such a
 * file made the hook allow every stop for the rest of the session). For
 * each shape: the stalled turn is still nudged, once; the file outside that
 * a link led to is unchanged (the attack's own checks: nothing outside
 * `.claude` changed, the planted entry is where it was moved to, unchanged);
 * and a few moved-aside entries per session at most. The promises every
 * hostile test checks are in `hostile_clone_e2e_test.ts`.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { attack, attackTest } from "../support/hostile_attack.ts";
import {
  AUTHORIZED_KEYS,
  mkfifo,
  type Planting,
  PROTO_IDS,
  replacing,
  SESSION,
} from "../support/hostile_clone.ts";
import { PLANTINGS } from "../support/hostile_plantings.ts";
import { linesOf } from "../support/sandbox.ts";
import { HOSTILE_CLONES, skipWhere } from "../support/platform.ts";

attackTest(
  "state",
  "the retry cap holds for tool_use ids constructor, __proto__, toString, hasOwnProperty",
  [],
  ["hook", "hook", "hook", "hook", "hook", "watch"],
  (_c, results) => {
    const codes = (results.get("hook") ?? []).map((r) => r.code);
    assert.deepEqual(codes, [2, 2, 2, 0, 0]);
    assert.equal(
      results.get("watch")?.[0]?.code,
      0,
      "the watcher is capped too",
    );
    const bullets = results.get("hook")![0]!.stderr.split("\n").filter((l) =>
      l.startsWith("- [")
    );
    for (const id of PROTO_IDS) {
      assert.equal(
        bullets.filter((b) =>
          b.includes(`id=${id})`) || b.includes(`id ${id})`)
        )
          .length,
        1,
        `${id}: ${bullets.join("\n")}`,
      );
    }
  },
);

attackTest(
  "state",
  "with the state folder at .claude, session id settings.local and pruning leave Claude Code's and foreign files alone, and that session is still protected",
  [PLANTINGS.stateDirIsClaude!],
  ["hook settings.local", "hook", "hook settings.local"],
  (c, results) => {
    assert.equal(
      results.get("hook")?.[0]?.code,
      2,
      "an ordinary session still works",
    );
    // Claude Code's settings.local.json is never touched (attack() checks
    // it); the session is still nudged, kept in stall-watch's own folder.
    for (const r of results.get("hook settings.local")!) {
      assert.equal(r.code, 2, r.stderr);
      assert.match(
        r.stderr,
        /not a file stall-watch wrote\); left it untouched/,
      );
    }
    assert.ok(
      Deno.lstatSync(join(c.project, ".claude/relocated/settings.local.json"))
        .isFile,
    );
    for (const name of [".notes.json.123.abc.tmp", "agent.lock", "old.json"]) {
      assert.ok(Deno.lstatSync(join(c.project, ".claude", name)).isFile, name);
    }
  },
);

attackTest(
  "state",
  "log over an event log of 130,000 sessions gives its summary, never exit 3",
  [{
    name: "an event log of 130,000 sessions",
    after: async (project) => {
      const events = Array.from({ length: 130_000 }, (_, i) =>
        JSON.stringify({
          event: "healthy_stop",
          reason: "answered",
          session_id: `s${i}`,
          ts: 1_780_000_000 + i,
        }) + "\n");
      await Deno.mkdir(join(project, ".claude/stall_watch"), {
        recursive: true,
      });
      await Deno.writeTextFile(
        join(project, ".claude/stall_watch/events.jsonl"),
        events.join(""),
      );
    },
  }],
  ["log"],
  (_c, results) => {
    const log = results.get("log")![0]!;
    assert.equal(log.code, 0, log.stderr);
  },
);

const STATE_DIR = ".claude/stall_watch";

type Which = "state" | "lock";

/** The session's file name for `which`. */
const nameOf = (which: Which) =>
  `${SESSION}.${which === "state" ? "json" : "lock"}`;

/** One unusable shape, planted under the session's state or lock name. */
interface Shape {
  /** The shape, for the test's name. */
  label: string;
  /** What the line and the event give as the reason. */
  reason: RegExp;
  plant: (which: Which) => Planting;
}

const SHAPES: Record<string, Shape> = {
  corrupt: {
    label: "cut short (not valid JSON)",
    reason: /it is not valid JSON/,
    // Cut short, as a full disk leaves it.
    plant: (which) => ({
      name: `a ${which} file cut short`,
      files: {
        [`${STATE_DIR}/${nameOf(which)}`]:
          '{\n  "config_notice": null,\n  "last_recovery_at": 17',
      },
    }),
  },
  symlink: {
    label: "a symlink to a file outside",
    reason: /it is a symlink/,
    plant: (which) => ({
      name: `a ${which} file symlinked to ~/.ssh/authorized_keys`,
      files: {
        [`${STATE_DIR}/${nameOf(which)}`]: {
          link: "../../../home/.ssh/authorized_keys",
        },
      },
    }),
  },
  "hard link": {
    label: "a hard link to a file outside",
    reason: /it has 2 hard links/,
    plant: (which) => ({
      name: `a ${which} file hard-linked to ~/.ssh/authorized_keys`,
      after: async (project, root) => {
        const path = join(project, STATE_DIR, nameOf(which));
        await Deno.mkdir(join(project, STATE_DIR), { recursive: true });
        await replacing(path);
        await Deno.link(join(root, "home/.ssh/authorized_keys"), path);
      },
    }),
  },
  FIFO: {
    label: "a FIFO",
    reason: /it is a FIFO/,
    plant: (which) => ({
      name: `a ${which} file that is a FIFO`,
      after: async (project) => {
        await Deno.mkdir(join(project, STATE_DIR), { recursive: true });
        await mkfifo(join(project, STATE_DIR, nameOf(which)));
      },
    }),
  },
  directory: {
    label: "a folder",
    reason: /it is a directory/,
    plant: (which) => ({
      name: `a ${which} file that is a folder`,
      files: { [`${STATE_DIR}/${nameOf(which)}/notes.txt`]: "mine\n" },
    }),
  },
};

/** The clone's event log, parsed. */
function loggedEvents(project: string): Record<string, unknown>[] {
  const text = Deno.readTextFileSync(join(project, STATE_DIR, "events.jsonl"));
  return linesOf(text).map((line) => JSON.parse(line));
}

for (const which of ["state", "lock"] as const) {
  for (const [shape, { label, reason, plant }] of Object.entries(SHAPES)) {
    // A lock file's content is never read: a corrupt one is a fine lock.
    if (which === "lock" && shape === "corrupt") continue;
    Deno.test({
      ...skipWhere(
        `hostile clone, state: a ${which} file that is ${label} is moved aside, the stalled turn is nudged once, a state_quarantined event logged`,
        HOSTILE_CLONES,
      ),
      fn: () =>
        attack([plant(which)], ["hook"], (c, results) => {
          const hook = results.get("hook")![0]!;
          assert.equal(hook.code, 2, `the stall is nudged: ${hook.stderr}`);
          const name = nameOf(which);
          const notes = linesOf(hook.stderr).filter((l) =>
            l.includes("moved it aside")
          );
          assert.equal(notes.length, 1, hook.stderr);
          assert.match(
            notes[0]!,
            new RegExp(
              `^stall_watch: session ${which} file ".*${name}" could not be used \\(${reason.source}\\); moved it aside to ${name}\\.quarantined-1 and ${
                which === "state"
                  ? "started a fresh retry budget"
                  : "took a fresh lock"
              }$`,
            ),
          );
          const moved = loggedEvents(c.project).filter((e) =>
            e.event === "state_quarantined"
          );
          assert.equal(moved.length, 1, JSON.stringify(moved));
          assert.equal(moved[0]!.file, which);
          assert.equal(moved[0]!.moved_to, `${name}.quarantined-1`);
          assert.match(String(moved[0]!.reason), reason);
          // One nudge, counted once for each stalled call, on a fresh budget.
          const state = JSON.parse(
            Deno.readTextFileSync(join(c.project, STATE_DIR, nameOf("state"))),
          );
          assert.deepEqual(
            Object.keys(state.retries).sort(),
            [...PROTO_IDS].sort(),
          );
          assert.ok(Object.values(state.retries).every((n) => n === 1));
          assert.equal(
            Deno.readTextFileSync(join(c.home, ".ssh/authorized_keys")),
            AUTHORIZED_KEYS,
          );
        }, "Read"),
    });
  }
}

Deno.test({
  ...skipWhere(
    "hostile clone, state: a session keeps at most 3 moved-aside state files; past that the file is refused and the stop allowed, as before",
    HOSTILE_CLONES,
  ),
  fn: () =>
    attack(
      [{
        name: "three earlier quarantines and a fourth symlink",
        files: {
          [`${STATE_DIR}/${nameOf("state")}`]: {
            link: "../../../home/.ssh/authorized_keys",
          },
          ...Object.fromEntries([1, 2, 3].map((n) => [
            `${STATE_DIR}/${nameOf("state")}.quarantined-${n}`,
            "{ torn",
          ])),
        },
      }],
      ["hook"],
      (c, results) => {
        const hook = results.get("hook")![0]!;
        assert.equal(hook.code, 0, hook.stderr);
        assert.match(
          hook.stderr,
          /^stall_watch: cannot use session state \(Refusing state file .*symlink.*\); allowing the stop rather than nudging without a retry budget\n/,
        );
        assert.ok(!hook.stderr.includes("moved it aside"), hook.stderr);
        assert.ok(
          Deno.lstatSync(join(c.project, STATE_DIR, nameOf("state"))).isSymlink,
        );
      },
      "Read",
    ),
});

/** The line saying a session's state is kept in the relocated folder. */
const RELOCATED_LINE =
  /^stall_watch: session state file ".*" is someone else's \(it is not a file stall-watch wrote\); left it untouched and kept this session's retry budget in ".*\/relocated\/[^/"]+\.json"$/;

for (
  const [label, foreign] of [
    ["unparseable text that is not stall-watch's ({not json)", "{not json"],
    ["someone else's JSON", '{"theirs": true}\n'],
  ]
) {
  Deno.test({
    ...skipWhere(
      `hostile clone, state: a stalled turn in a session whose state file holds ${label} is still nudged exactly once, the file untouched, its budget kept in stall-watch's own folder`,
      HOSTILE_CLONES,
    ),
    fn: () =>
      attack(
        [{
          name: `a state file holding ${label}`,
          files: {
            [`${STATE_DIR}/${nameOf("state")}`]: foreign!,
            // One nudge per call: the second stop shows the budget held.
            ".claude/stall-watch.jsonc": JSON.stringify({
              max_retries: 1,
              event_log: { enabled: true },
              watch: { idle_seconds: 0.05, max_seconds: 1 },
            }),
          },
        }],
        ["hook", "hook", "watch"],
        (c, results) => {
          const [first, second] = results.get("hook")!;
          assert.equal(first!.code, 2, `the stall is nudged: ${first!.stderr}`);
          const notes = linesOf(first!.stderr).filter((l) =>
            l.includes("someone else's")
          );
          assert.equal(notes.length, 1, first!.stderr);
          assert.match(notes[0]!, RELOCATED_LINE);
          assert.equal(second!.code, 0, "nudged once: the cap held");
          assert.match(second!.stderr, /retry cap reached \(1\/1\)/);
          assert.equal(results.get("watch")![0]!.code, 0, "the watcher too");
          // The foreign file is as it was (attack() checks every planted
          // file); the budget is in the relocated folder.
          const kept = JSON.parse(
            Deno.readTextFileSync(
              join(c.project, STATE_DIR, "relocated", nameOf("state")),
            ),
          );
          assert.deepEqual(
            Object.keys(kept.retries).sort(),
            [...PROTO_IDS].sort(),
          );
          assert.ok(Object.values(kept.retries).every((n) => n === 1));
          const relocated = loggedEvents(c.project).filter((e) =>
            e.event === "state_relocated"
          );
          assert.ok(relocated.length >= 1, JSON.stringify(relocated));
          assert.equal(
            relocated[0]!.reason,
            "it is not a file stall-watch wrote",
          );
        },
        "Read",
      ),
  });
}

attackTest(
  "state",
  "in .codex, a foreign file under the session's state name is left alone and the session kept in relocated, a symlinked lock never written through, a log linked to hooks.json refused; codex-stop still nudges",
  [PLANTINGS.codexForeignState!],
  ["codex-stop", "codex-stop"],
  (c, results) => {
    const [first] = results.get("codex-stop") ?? [];
    assert.equal(first?.code, 2, first?.stderr);
    assert.match(
      first!.stderr,
      /is someone else's .* kept this session's retry budget in/,
    );
    assert.match(first!.stderr, /event log not written/);
    assert.equal(
      Deno.readTextFileSync(
        join(c.project, `.codex/stall_watch/${SESSION}.json`),
      ),
      '{"theirs": true}\n',
    );
    assert.equal(
      Deno.readTextFileSync(join(c.project, ".codex/hooks.json")),
      '{ "hooks": {} }\n',
    );
    assert.ok(
      Deno.statSync(
        join(c.project, `.codex/stall_watch/relocated/${SESSION}.json`),
      ).isFile,
    );
  },
);
