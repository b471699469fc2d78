/**
 * Confinement as a Windows project can attack it, through real hook
 * processes under the release flags. Without admin rights or Developer Mode
 * a Windows process makes no symlinks, but it makes junctions and hard
 * links, and a path there may name another drive, a UNC share, the root of
 * the current drive (`\x`) or a drive's current folder (`C:x`). These run on
 * every platform that can make what they plant (on POSIX the Windows path
 * shapes are plain names, refused as well); the Windows lane runs them under
 * Wine, which makes hard links but no junctions. The symlink and FIFO
 * attacks are in `hostile_repo_e2e_test.ts` and its neighbours.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { parseState } from "../../src/guardrails/session_state.ts";
import { runBounded, type Sandbox, tempSandbox } from "../support/sandbox.ts";
import { offWindows, skipWhere, underWine } from "../support/platform.ts";
import { pendingTranscript, stopPayload } from "../support/transcripts.ts";

const TOOL_ID = "toolu_01WinConfine";
const STATE_DIR = join(".claude", "stall_watch");

async function stalledSandbox(): Promise<Sandbox> {
  const s = await tempSandbox();
  await Deno.writeTextFile(s.transcript, pendingTranscript(TOOL_ID));
  return s;
}

function hook(s: Sandbox, session: string, env: Record<string, string> = {}) {
  return runBounded({
    cwd: s.project,
    stdin: stopPayload(session, s.transcript, s.project),
    env,
  });
}

async function retries(s: Sandbox, session: string): Promise<unknown> {
  const text = await Deno.readTextFile(
    join(s.project, STATE_DIR, `${session}.json`),
  );
  return parseState(text).state.retries;
}

/** State folders that all lead out of `.claude` on Windows. */
const WINDOWS_ESCAPES: [string, string][] = [
  ["another drive", "D:\\elsewhere"],
  ["a UNC share", "\\\\server\\share\\elsewhere"],
  ["the root of the current drive", "\\elsewhere"],
  ["the current folder of drive C:", "C:elsewhere"],
  ["a parent folder", "..\\elsewhere"],
  ["out of .claude and back up", ".claude\\..\\..\\elsewhere"],
  ["the 8.3 short name of .claude", "CLAUDE~1\\stall_watch"],
  ["an alternate data stream of .claude", ".claude:stream"],
];

Deno.test("a state folder or log on another drive, a UNC share, a root- or drive-relative path, a short name or a stream is refused and the default used", async () => {
  await using s = await stalledSandbox();
  const before = await s.snapshotOutsideClaude();
  for (const [i, [what, path]] of WINDOWS_ESCAPES.entries()) {
    const session = `escape${i}`;
    const result = await hook(s, session, {
      STALL_WATCH_STATE_DIR: path,
      STALL_WATCH_LOG_FILE: `${path}\\events.jsonl`,
      STALL_WATCH_OUTPUT: "json",
    });
    assert.equal(result.code, 0, `${what}: ${result.stderr}`);
    const output = JSON.parse(result.stdout);
    assert.equal(output.decision, "block", what);
    assert.ok(
      output.systemMessage.includes(`Refusing state folder "${path}"`),
      `${what}: ${output.systemMessage}`,
    );
    assert.ok(
      output.systemMessage.includes(`Refusing event log "${path}\\events`),
      `${what}: ${output.systemMessage}`,
    );
    assert.deepEqual(await retries(s, session), { [TOOL_ID]: 1 }, what);
  }
  assert.deepEqual(await s.snapshotOutsideClaude(), before);
});

Deno.test("hard links planted in .claude (no rights needed on Windows) are moved aside or refused, and the file outside keeps its content", async (t) => {
  const cases = [
    {
      what: "the session's state file",
      name: "s1.json",
      // Moved aside, a fresh budget: the stall is nudged.
      code: 2,
      line:
        /stall_watch: session state file ".*s1\.json" could not be used \(it has 2 hard links\); moved it aside to s1\.json\.quarantined-1 and started a fresh retry budget\n/,
    },
    {
      what: "the session's lock file",
      name: "s1.lock",
      code: 2,
      line:
        /stall_watch: session lock file ".*s1\.lock" could not be used \(it has 2 hard links\); moved it aside to s1\.lock\.quarantined-1 and took a fresh lock\n/,
    },
    {
      what: "the event log",
      name: "events.jsonl",
      code: 2,
      line:
        /stall_watch: event log not written \(Refusing event log ".*events\.jsonl": it has 2 hard links/,
    },
  ];
  for (const c of cases) {
    await t.step(c.what, async () => {
      await using s = await stalledSandbox();
      const outsideFile = join(s.outside, "keep.txt");
      await Deno.mkdir(join(s.project, STATE_DIR), { recursive: true });
      await Deno.link(outsideFile, join(s.project, STATE_DIR, c.name));
      const before = await s.snapshotOutsideClaude();
      const result = await hook(s, "s1", {
        STALL_WATCH_LOG_FILE: join(STATE_DIR, "events.jsonl"),
      });
      assert.equal(result.code, c.code, result.stderr);
      assert.match(result.stderr, c.line);
      assert.equal(await Deno.readTextFile(outsideFile), "outside data\n");
      assert.deepEqual(await s.snapshotOutsideClaude(), before);
    });
  }
});

Deno.test({
  ...skipWhere(
    "a junction planted as the state folder, leading outside, is refused and the stop allowed",
    offWindows("junctions are Windows'; POSIX symlinks are tested instead"),
    underWine(
      "Wine makes no junctions (Deno.symlink type junction: os error 50)",
    ),
  ),
  async fn() {
    await using s = await stalledSandbox();
    await Deno.mkdir(join(s.project, ".claude"));
    await Deno.symlink(s.outside, join(s.project, STATE_DIR), {
      type: "junction",
    });
    const before = await s.snapshotOutsideClaude();
    const result = await hook(s, "s1");
    assert.equal(result.code, 0, result.stderr);
    assert.match(
      result.stderr,
      /^stall_watch: cannot use session state \(Refusing state folder .*\); allowing the stop/,
    );
    assert.deepEqual(await s.snapshotOutsideClaude(), before);
  },
});

/** Names Windows keeps for devices, as a state folder or log would use them. */
const DEVICE_NAMES = [
  ".claude/COM1",
  ".claude/aux.d",
  ".claude/NUL. ",
  ".claude/lpt9 .x",
];

Deno.test("a state folder or log named like a Windows device (CON, NUL, AUX, COM1, LPT9, any case or extension) is refused and the default used; a session named CON keeps its state in _CON.json", async () => {
  await using s = await stalledSandbox();
  for (const [i, path] of DEVICE_NAMES.entries()) {
    const session = `device${i}`;
    const result = await hook(s, session, {
      STALL_WATCH_STATE_DIR: path,
      STALL_WATCH_LOG_FILE: `.claude/${
        ["CON", "con.LOG", "Com1.log", "nul.jsonl"][i]
      }`,
      STALL_WATCH_OUTPUT: "json",
    });
    assert.equal(result.code, 0, `${path}: ${result.stderr}`);
    const output = JSON.parse(result.stdout);
    assert.equal(output.decision, "block", path);
    assert.match(
      output.systemMessage,
      /Refusing state folder ".*": ".*" is a Windows device name/,
      path,
    );
    assert.match(
      output.systemMessage,
      /Refusing event log ".*": ".*" is a Windows device name/,
      path,
    );
    assert.deepEqual(await retries(s, session), { [TOOL_ID]: 1 }, path);
  }
  const con = await hook(s, "CON");
  assert.equal(con.code, 2, con.stderr);
  const text = await Deno.readTextFile(join(s.project, STATE_DIR, "_CON.json"));
  assert.deepEqual(parseState(text).state.retries, { [TOOL_ID]: 1 });
});
