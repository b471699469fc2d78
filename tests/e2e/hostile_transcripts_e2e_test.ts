/**
 * Hostile clones, transcripts: what a repository's tools and MCP servers
 * write into a session's transcript, and what reaches the hook in its
 * payload. A tool name holding a newline, terminal escapes and a bidi
 * override reaches the model quoted and the terminal escaped; 150,000
 * turns are read, not a crash; a payload of background tasks nested in
 * background tasks costs one pass (`tests/hook/nested_cut_test.ts` counts
 * the characters read). The promises every hostile test checks are in
 * `hostile_clone_e2e_test.ts`.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { attack, attackTest } from "../support/hostile_attack.ts";
import { SESSION } from "../support/hostile_clone.ts";
import { runBounded, tempSandbox } from "../support/sandbox.ts";
import { pendingTranscript, stopPayload } from "../support/transcripts.ts";
import { SessionTranscript } from "../support/watch_session.ts";
import { HOSTILE_CLONES, skipWhere } from "../support/platform.ts";

Deno.test({
  ...skipWhere(
    "hostile clone, transcripts: a tool name with a newline, OSC, CR and a bidi override reaches the model quoted and the terminal escaped",
    HOSTILE_CLONES,
  ),
  fn: () =>
    attack(
      [],
      ["hook", "scan", "scan --all-turns", "audit", "log"],
      (_c, results) => {
        const block = results.get("hook")![0]!.stderr;
        assert.match(
          block,
          /first stall = "Read\\n- \[pending_tool_use\] FORGED/,
        );
        assert.equal(
          block.split("\n").filter((l) => l.startsWith("- [")).length,
          4,
        );
        assert.match(
          results.get("scan")![0]!.stdout,
          /Read\\n- \[pending_tool_use\] FORGED/,
        );
      },
    ),
});

attackTest(
  "transcripts",
  "scan --all-turns over a transcript of 150,000 turns gives its result, never exit 3",
  [{
    name: "a transcript of 150,000 turns",
    after: async (project) => {
      const t = new SessionTranscript(join(project, "transcripts"), SESSION);
      const turns: string[] = [];
      for (let i = 0; i < 150_000; i++) {
        turns.push(t.prompt(`q${i}`), t.text(`a${i}`));
      }
      await Deno.writeTextFile(t.path, turns.join(""));
    },
  }],
  ["scan --all-turns"],
  (_c, results) => {
    const scan = results.get("scan --all-turns")![0]!;
    assert.equal(scan.code, 0, scan.stderr);
    assert.match(scan.stdout, /150,000 turns/);
  },
);

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
    "hostile clone, transcripts: a Stop payload of 2.4 MB of background_tasks nested in background_tasks costs the hook one pass",
  fn: async () => {
    await using s = await tempSandbox();
    await Deno.writeTextFile(s.transcript, pendingTranscript("toolu_nest"));
    const stdin = nestedTasksPayload(s.transcript, s.project, 36_000);
    assert.ok(stdin.length > 2_300_000, `${stdin.length} characters`);
    JSON.parse(stdin); // valid JSON, so the hook must judge it
    const hook = await runBounded({ cwd: s.project, stdin });
    assert.equal(hook.code, 2, hook.stderr);
    assert.match(hook.stderr, /pending tool_use/);
  },
});
