/**
 * Faults around the hook, through real processes under the release
 * permission flags: a `.claude` that is a file, symlinks planted in the
 * state folder, a full disk, a transcript deleted, truncated or a FIFO, a
 * config that is a FIFO, a device or absurdly nested, and 100 MB on stdin.
 * Each ends with its documented exit code and one clear line, leaves the
 * saved state as it was, and changes nothing outside `.claude`.
 *
 * (`.claude` read-only, a state folder symlinked outside and a transcript
 * that is a directory are covered in guardrails_e2e_test.ts and
 * hook_e2e_test.ts.)
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { parseState } from "../../src/guardrails/session_state.ts";
import { run as runQuietly } from "../support/read_only.ts";
import {
  linesOf,
  runBounded,
  type Sandbox,
  tempSandbox,
} from "../support/sandbox.ts";
import {
  asPreLastMessageClient,
  assistantTextLine,
  pendingTranscript,
  resultLine,
  stopPayload,
} from "../support/transcripts.ts";
import { PLANTS_POSIX_LINKS, skipWhere } from "../support/platform.ts";

const TOOL_ID = "toolu_01StuckRead";
const STATE = ".claude/stall_watch/s1.json";

function hook(s: Sandbox, env: Record<string, string> = {}, extra = {}) {
  return runBounded({
    cwd: s.project,
    stdin: { ...stopPayload("s1", s.transcript, s.project), ...extra },
    env,
  });
}

/** A stalled transcript, nudged once: state holds one retry for the call. */
async function seedState(s: Sandbox): Promise<string> {
  await Deno.writeTextFile(s.transcript, pendingTranscript(TOOL_ID));
  const first = await hook(s);
  assert.equal(first.code, 2, first.stderr);
  const text = await Deno.readTextFile(join(s.project, STATE));
  assert.deepEqual(parseState(text).state.retries, { [TOOL_ID]: 1 });
  return text;
}

function assertOneLine(stderr: string, pattern: RegExp): void {
  const lines = linesOf(stderr);
  assert.equal(lines.length, 1, `one line expected, got:\n${stderr}`);
  assert.match(lines[0] as string, pattern);
}

Deno.test("a .claude that is a file allows the stop with one line and is left alone", async () => {
  await using s = await tempSandbox();
  await Deno.writeTextFile(s.transcript, pendingTranscript(TOOL_ID));
  const marker = join(s.project, ".claude");
  await Deno.writeTextFile(marker, "not a folder\n");
  const before = await s.snapshotOutsideClaude();

  const result = await hook(s);
  assert.equal(result.code, 0);
  assert.equal(result.stdout, "", "no bogus config notice");
  assertOneLine(
    result.stderr,
    /^stall_watch: cannot use session state \(Cannot use state folder "\.claude\/stall_watch": .*\.claude is not a directory\); allowing the stop rather than nudging without a retry budget$/,
  );
  const logged = await hook(s, {
    STALL_WATCH_LOG_FILE: ".claude/stall_watch/events.jsonl",
  });
  assert.equal(logged.code, 0);
  assert.match(
    linesOf(logged.stderr)[1] ?? "",
    /^stall_watch: event log not written \(Cannot use event log folder .*is not a directory\)$/,
  );
  assert.equal(await Deno.readTextFile(marker), "not a folder\n");
  assert.deepEqual(await s.snapshotOutsideClaude(), before);
});

Deno.test(
  skipWhere(
    "symlinks planted in the state folder are moved aside, never written through, and the stall still nudged",
    PLANTS_POSIX_LINKS,
  ),
  async () => {
    await using s = await tempSandbox();
    await Deno.writeTextFile(s.transcript, pendingTranscript(TOOL_ID));
    const dir = join(s.project, ".claude/stall_watch");
    await Deno.mkdir(dir, { recursive: true });
    const keep = join(s.outside, "keep.txt");
    // To an existing file, and dangling: opening a dangling symlink for
    // writing would create its target outside .claude.
    await Deno.symlink(keep, join(dir, "to-file.json"));
    await Deno.symlink(
      join(s.outside, "made.json"),
      join(dir, "dangling.json"),
    );
    await Deno.symlink(keep, join(dir, "lock-file.lock"));
    await Deno.symlink(
      join(s.outside, "made.lock"),
      join(dir, "lock-dangling.lock"),
    );
    // A dangling chain whose first hop stays inside .claude.
    await Deno.symlink(join(dir, "hop"), join(dir, "chain.json"));
    await Deno.symlink(join(s.outside, "chained.json"), join(dir, "hop"));
    await Deno.symlink(
      join(s.outside, "events.jsonl"),
      join(dir, "events.jsonl"),
    );
    const before = await s.snapshotOutsideClaude();

    const sessions = [
      "to-file",
      "dangling",
      "chain",
      "lock-file",
      "lock-dangling",
    ];
    for (const session of sessions) {
      const result = await runBounded({
        cwd: s.project,
        stdin: stopPayload(session, s.transcript, s.project),
      });
      assert.equal(result.code, 2, `${session}: ${result.stderr}`);
      assert.equal(result.stdout, "");
      const file = session.startsWith("lock-") ? "lock" : "state";
      const name = `${session}.${file === "lock" ? "lock" : "json"}`;
      assert.match(
        linesOf(result.stderr).at(-1) ?? "",
        new RegExp(
          `^stall_watch: session ${file} file ".*${name}" could not be used \\(it is a symlink\\); moved it aside to ${name}\\.quarantined-1 and `,
        ),
      );
      // The link itself moved: where it leads is the same.
      assert.ok(
        (await Deno.lstat(join(dir, `${name}.quarantined-1`))).isSymlink,
      );
    }
    const logged = await hook(s, {
      STALL_WATCH_LOG_FILE: ".claude/stall_watch/events.jsonl",
    });
    assert.equal(logged.code, 2, "state is fine: the stall is nudged");
    assert.match(
      logged.stderr,
      /\nstall_watch: event log not written \(Refusing event log .*symlink to outside/,
    );
    assert.deepEqual(await s.snapshotOutsideClaude(), before);
  },
);

/** Mounts a 64 KiB tmpfs on `dir`; disposal unmounts it. Null when impossible here. */
async function mountTinyDisk(dir: string): Promise<AsyncDisposable | null> {
  if (Deno.build.os !== "linux") return null;
  const run = (args: string[]) => runQuietly("mount", args);
  if (!await run(["-t", "tmpfs", "-o", "size=64k", "tmpfs", dir])) return null;
  return {
    async [Symbol.asyncDispose]() {
      await new Deno.Command("umount", { args: [dir] }).output();
    },
  };
}

/** Writes until the file system is full. */
async function fillDisk(path: string): Promise<void> {
  const file = await Deno.open(path, { create: true, write: true });
  try {
    const block = new Uint8Array(4096);
    for (;;) {
      try {
        await file.write(block.subarray(0, 1));
        await file.write(block);
      } catch {
        return; // ENOSPC
      }
    }
  } finally {
    file.close();
  }
}

Deno.test("a full disk allows the stop with one line and keeps the saved state", async (t) => {
  await using s = await tempSandbox();
  const claude = join(s.project, ".claude");
  await Deno.mkdir(claude);
  await using tinyDisk = await mountTinyDisk(claude);
  if (!tinyDisk) {
    await t.step({
      name: "needs root on Linux to mount a small tmpfs",
      ignore: true,
      fn: () => {},
    });
    return;
  }
  const saved = await seedState(s);
  await fillDisk(join(claude, "filler"));
  const before = await s.snapshotOutsideClaude();

  const full = await hook(s);
  assert.equal(full.code, 0);
  assert.equal(full.stdout, "");
  assertOneLine(
    full.stderr,
    /^stall_watch: cannot use session state \(No space left on device.*\); allowing the stop rather than nudging without a retry budget$/,
  );
  assert.equal(await Deno.readTextFile(join(s.project, STATE)), saved);
  const leftovers = [];
  for await (const e of Deno.readDir(join(claude, "stall_watch"))) {
    if (e.name.endsWith(".tmp")) leftovers.push(e.name);
  }
  assert.deepEqual(leftovers, [], "the failed write cleaned up");
  assert.deepEqual(await s.snapshotOutsideClaude(), before);

  // With room again, counting resumes from the saved state.
  await Deno.remove(join(claude, "filler"));
  assert.equal((await hook(s)).code, 2);
  const state = await Deno.readTextFile(join(s.project, STATE));
  assert.deepEqual(parseState(state).state.retries, { [TOOL_ID]: 2 });
});

Deno.test("a transcript deleted or cut while the hook waits for it to grow is judged on what is left", async () => {
  await using s = await tempSandbox();
  for (
    const [what, damage] of [
      ["deleted", () => Deno.remove(s.transcript)],
      ["truncated to nothing", () => Deno.truncate(s.transcript, 0)],
      [
        "cut before the stalled call",
        async () => {
          const text = await Deno.readTextFile(s.transcript);
          const cut = text.split("\n").slice(0, 4).join("\n") + "\n";
          await Deno.writeTextFile(s.transcript, cut);
        },
      ],
    ] as const
  ) {
    // The damage must land while the hook waits, after its first read: a
    // hook that started late (a loaded machine, Windows Deno under Wine)
    // reads the damaged file first and waits out its whole lag wait for a
    // reply. Then try again with more time to start.
    let landed = false;
    for (const startMs of [1000, 2000, 4000]) {
      // A missing follow-up written by a Claude Code from before
      // last_assistant_message: the hook waits.
      await Deno.writeTextFile(
        s.transcript,
        asPreLastMessageClient(
          pendingTranscript(TOOL_ID) + resultLine(TOOL_ID, "8080"),
        ),
      );
      const lagWaitMs = startMs + 3000;
      const running = hook(s, {
        STALL_WATCH_LAG_WAIT_MS: String(lagWaitMs),
      }, { prompt_id: undefined });
      await new Promise((resolve) => setTimeout(resolve, startMs));
      await damage();
      const result = await running;
      if (result.elapsedMs >= lagWaitMs) {
        // Landed before the read: the hook waited its whole lag wait for
        // the file and allowed, saying so in one line (fail open).
        assert.deepEqual([result.code, result.stdout], [0, ""], what);
        if (result.stderr !== "") {
          assertOneLine(
            result.stderr,
            /^stall_watch: budget exhausted \(lag wait of \d+ ms\) before the turn could be judged; stop allowed$/,
          );
        }
        continue;
      }
      assert.deepEqual(
        [result.code, result.stdout, result.stderr],
        [0, "", ""],
        what,
      );
      assert.ok(
        result.elapsedMs < startMs + 2000,
        `${what}: stopped waiting (${result.elapsedMs.toFixed(0)} ms)`,
      );
      landed = true;
      break;
    }
    assert.ok(landed, `${what}: the hook never saw the damage while waiting`);
  }
});

Deno.test("a transcript truncated while it is being read never crashes or hangs the hook", async () => {
  await using s = await tempSandbox();
  // One long turn, so the scan reads many megabytes from the end.
  const filler = assistantTextLine("x".repeat(200_000));
  const lines = pendingTranscript(TOOL_ID).split("\n");
  const big = [
    ...lines.slice(0, 3),
    filler.repeat(120).trimEnd(),
    ...lines.slice(3),
  ].join("\n");
  for (let i = 0; i < 3; i++) {
    await Deno.writeTextFile(s.transcript, big);
    const running = hook(s, {}, { session_id: `cut${i}` });
    await new Promise((resolve) => setTimeout(resolve, 150 + 150 * i));
    await Deno.truncate(s.transcript, Math.floor(big.length / (i + 2)));
    const result = await running;
    assert.ok([0, 2].includes(result.code), result.stderr);
    assert.doesNotMatch(result.stderr, /internal error|\n\s+at /);
    if (result.code === 2) assert.match(result.stderr, /^stall_watch: /);
  }
});

Deno.test("100 MB on stdin ends with exit 1 and one line, without reading it all", async () => {
  await using s = await tempSandbox();
  const before = await s.snapshotOutsideClaude();
  const padding = "x".repeat(100 * 1024 * 1024);
  const result = await runBounded({
    cwd: s.project,
    stdin: `{"transcript_path":"${s.transcript}","pad":"${padding}"}`,
  });
  assert.equal(result.code, 1);
  assert.equal(result.stdout, "");
  assertOneLine(
    result.stderr,
    /^stall-watch: Cannot parse hook input: stdin exceeds 32 MiB$/,
  );
  assert.deepEqual(await s.snapshotOutsideClaude(), before);
  // Just under the cap is an ordinary payload.
  await Deno.writeTextFile(s.transcript, pendingTranscript(TOOL_ID));
  const large = await runBounded({
    cwd: s.project,
    stdin: {
      ...stopPayload("s1", s.transcript, s.project),
      last_assistant_message: "The port is 8081 now. " + "y".repeat(31 << 20),
    },
  });
  assert.deepEqual(
    [large.code, large.stderr],
    [0, ""],
    "a follow-up proved by the message",
  );
});

Deno.test(
  skipWhere(
    "a transcript that is a FIFO is refused with exit 1 and one line, without blocking",
    PLANTS_POSIX_LINKS,
  ),
  async () => {
    await using s = await tempSandbox();
    const saved = await seedState(s);
    const fifo = join(s.project, "fifo.jsonl");
    await new Deno.Command("mkfifo", { args: [fifo] }).output();
    const before = await s.snapshotOutsideClaude();
    const payloads = [
      stopPayload("s1", fifo, s.project),
      {
        ...stopPayload("s1", s.transcript, s.project),
        hook_event_name: "SubagentStop",
        agent_transcript_path: fifo,
      },
    ];
    for (const stdin of payloads) {
      const result = await runBounded({ cwd: s.project, stdin });
      assert.equal(result.code, 1);
      assert.equal(result.stdout, "");
      assertOneLine(
        result.stderr,
        /^stall-watch: Cannot read transcript ".*fifo\.jsonl": it is not a regular file$/,
      );
    }
    assert.equal(await Deno.readTextFile(join(s.project, STATE)), saved);
    assert.deepEqual(await s.snapshotOutsideClaude(), before);
  },
);

Deno.test(
  skipWhere(
    "a config that is a FIFO, a device or nested 100,000 deep is reported once, never hangs or crashes",
    PLANTS_POSIX_LINKS,
  ),
  async () => {
    await using s = await tempSandbox();
    await Deno.writeTextFile(
      s.transcript,
      pendingTranscript(TOOL_ID) + resultLine(TOOL_ID, "8080") +
        assistantTextLine("The port is 8081 now."),
    );
    const config = join(s.project, ".claude/stall-watch.jsonc");
    await Deno.mkdir(join(s.project, ".claude"));
    const cases: [string, () => Promise<unknown>, RegExp][] = [
      [
        "fifo",
        () => new Deno.Command("mkfifo", { args: [config] }).output(),
        /cannot read the config file: it is not a regular file/,
      ],
      [
        "device",
        // A link out of the project: refused before /dev/zero is opened.
        () => Deno.symlink("/dev/zero", config),
        /cannot read the config file: it leads out of .*is a symlink to \/dev\/zero\)/,
      ],
      [
        "nested",
        () =>
          Deno.writeTextFile(
            config,
            `{"event_log": ${"[".repeat(100_000)}${"]".repeat(100_000)}}`,
          ),
        /nested too deeply/,
      ],
    ];
    const before = await s.snapshotOutsideClaude();
    for (const [name, make, problem] of cases) {
      await Deno.remove(config).catch(() => {});
      await make();
      const result = await hook(s, {}, { session_id: name });
      assert.equal(result.code, 0, `${name}: ${result.stderr}`);
      assert.equal(result.stderr, "");
      const { systemMessage } = JSON.parse(result.stdout);
      assert.match(systemMessage, problem, name);
    }
    assert.deepEqual(await s.snapshotOutsideClaude(), before);
  },
);

Deno.test("a state folder shared with Claude Code's own files never loses them to pruning", async () => {
  await using s = await tempSandbox();
  await Deno.writeTextFile(s.transcript, pendingTranscript(TOOL_ID));
  const claude = join(s.project, ".claude");
  await Deno.mkdir(claude);
  const foreign: Record<string, string> = {
    "settings.json": '{"hooks": {}}\n',
    "settings.local.json": '{"permissions": {"deny": ["Bash(rm:*)"]}}\n',
    "notes.tmp": "draft\n",
    "tool.lock": "pid 42\n",
  };
  for (const [name, text] of Object.entries(foreign)) {
    await Deno.writeTextFile(join(claude, name), text);
  }
  // A session idle for 60 days: stall-watch's own, due for pruning.
  await Deno.writeTextFile(
    join(claude, "idle.json"),
    '{"config_notice": null, "last_recovery_at": 1, "retries": {}}\n',
  );
  await Deno.writeTextFile(join(claude, "idle.lock"), "");
  const old = new Date(Date.now() - 60 * 24 * 60 * 60 * 1000);
  for (const name of [...Object.keys(foreign), "idle.json", "idle.lock"]) {
    await Deno.utime(join(claude, name), old, old);
  }

  const result = await hook(s, { STALL_WATCH_STATE_DIR: ".claude" });
  assert.equal(result.code, 2, "a recovery, which prunes stale state");
  for (const [name, text] of Object.entries(foreign)) {
    assert.equal(await Deno.readTextFile(join(claude, name)), text, name);
  }
  for (const name of ["idle.json", "idle.lock"]) {
    assert.equal(
      await Deno.lstat(join(claude, name)).then(() => true, () => false),
      false,
      `${name} pruned`,
    );
  }
});
