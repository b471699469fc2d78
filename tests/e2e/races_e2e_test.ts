/**
 * Races through real processes under the release permission flags: hooks
 * killed at random moments while they save state, a lock held by a stuck
 * hook, and many processes appending to one event log across rotations.
 * (16 concurrent hooks on one session are in guardrails_e2e_test.ts.)
 *
 * `STALL_WATCH_RACE_ROUNDS=<n>` kills n hooks instead of the default 12.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { HOOK_PERMISSION_FLAGS } from "../../src/shared/permissions.ts";
import {
  parseState,
  serializeState,
} from "../../src/guardrails/session_state.ts";
import { spawnStallWatch } from "../support/hook_process.ts";
import {
  type BoundedResult,
  runBounded,
  tempSandbox,
} from "../support/sandbox.ts";
import { pendingTranscript, stopPayload } from "../support/transcripts.ts";
import {
  APPENDS_FROM_PROCESSES,
  SENDS_SIGKILL,
  skipWhere,
} from "../support/platform.ts";

function rounds(fallback: number): number {
  const n = Number(Deno.env.get("STALL_WATCH_RACE_ROUNDS") ?? "");
  return Number.isInteger(n) && n > 0 ? n : fallback;
}

/** Every count in `before` is still there, and no smaller. */
function assertNoCountWentBack(
  before: Record<string, number>,
  after: Record<string, number>,
  when: string,
): void {
  for (const [id, count] of Object.entries(before)) {
    assert.ok((after[id] ?? -1) >= count, `${when}: ${id} went back`);
  }
}

/** What the SIGKILL experiment saw; each test below judges one part of it. */
interface KillExperiment {
  /** The state file before the kills, then after each round, parsed. */
  states: ReturnType<typeof parseState>[];
  /** Rounds whose hook did not finish (exit other than 2). */
  killed: number;
  /** Kills that landed between temp file and rename. */
  midWrite: number;
  /** The hook run once the kills are over, and the call it was for. */
  last: BoundedResult;
  lastCall: string;
  /** The state file after that run, parsed. */
  final: ReturnType<typeof parseState>;
}

let experiment: Promise<KillExperiment> | undefined;

/**
 * Kills hooks of one session while they save a big state file, at random
 * moments and aimed at the write, then runs one more. It runs once per test
 * module: the tests share what it saw.
 */
function killExperiment(): Promise<KillExperiment> {
  return experiment ??= runKillExperiment();
}

async function runKillExperiment(): Promise<KillExperiment> {
  await using s = await tempSandbox();
  // A big state file, so writing it takes long enough to be interrupted.
  const dir = join(s.project, ".claude/stall_watch");
  await Deno.mkdir(dir, { recursive: true });
  const retries: Record<string, number> = {};
  for (let i = 0; i < 20_000; i++) retries[`toolu_seed_${i}`] = 1;
  const statePath = join(dir, "killed.json");
  await Deno.writeTextFile(
    statePath,
    serializeState({ retries, lastRecoveryAt: 0, configNotice: null }),
  );
  const payload = (i: number) => {
    const transcript = join(s.project, `t${i}.jsonl`);
    Deno.writeTextFileSync(
      transcript,
      pendingTranscript(`toolu_kill_${i}`),
    );
    return stopPayload("killed", transcript, s.project);
  };

  // How long a whole run takes here, to aim the kills at its end, where
  // the state is written.
  const timed = await runBounded({ cwd: s.project, stdin: payload(0) });
  assert.equal(timed.code, 2, timed.stderr);
  const runMs = timed.elapsedMs;

  const states = [parseState(await Deno.readTextFile(statePath))];
  let killed = 0;
  let midWrite = 0;
  const total = rounds(12);
  // A kill lands between temp file and rename only by luck (the write
  // takes a few ms, less on a busy machine's good moments): past the
  // fixed rounds, aim on until one has, at most 60 more times.
  let i = 0;
  while (++i <= total || (midWrite === 0 && i <= total + 60)) {
    const running = await spawnStallWatch({
      cwd: s.project,
      stdin: payload(i),
    });
    if (i % 2 === 0 || i > total) {
      // Aim at the write itself.
      if (await killWhenWriting(running.pid, dir, statePath, runMs * 3)) {
        midWrite++;
      }
    } else {
      // Or at any moment of the run.
      const at = runMs * 1.2 * Math.random();
      await new Promise((resolve) => setTimeout(resolve, at));
      kill(running.pid);
    }
    if ((await running.finished).code !== 2) killed++;
    states.push(parseState(await Deno.readTextFile(statePath)));
  }

  const last = await runBounded({
    cwd: s.project,
    stdin: payload(i),
  });
  const final = parseState(await Deno.readTextFile(statePath));
  return { states, killed, midWrite, last, lastCall: `toolu_kill_${i}`, final };
}

Deno.test(
  skipWhere(
    "the SIGKILL rounds kill some hooks before they finish and some between temp file and rename",
    SENDS_SIGKILL,
  ),
  async () => {
    const { killed, midWrite } = await killExperiment();
    assert.ok(killed > 0, "some runs were killed before they finished");
    assert.ok(midWrite > 0, "some were killed between temp file and rename");
  },
);

Deno.test(
  skipWhere(
    "a hook SIGKILLed at a random moment or mid-write leaves a state file that parses",
    SENDS_SIGKILL,
  ),
  async () => {
    const { states } = await killExperiment();
    for (let i = 1; i < states.length; i++) {
      const loaded = states[i]!;
      assert.equal(loaded.note, null, `round ${i}: the state file parses`);
    }
  },
);

Deno.test(
  skipWhere(
    "a hook SIGKILLed at a random moment or mid-write never takes a retry count back",
    SENDS_SIGKILL,
  ),
  async () => {
    const { states, final } = await killExperiment();
    let previous = states[0]!.state.retries;
    for (let i = 1; i < states.length; i++) {
      const loaded = states[i]!;
      assertNoCountWentBack(previous, loaded.state.retries, `round ${i}`);
      previous = loaded.state.retries;
    }
    assertNoCountWentBack(
      previous,
      final.state.retries,
      "after the kills",
    );
  },
);

Deno.test(
  skipWhere(
    "after SIGKILLed hooks the lock never wedges: the next hook gets it and counts its call, the 20,000 seeded counts intact",
    SENDS_SIGKILL,
  ),
  async () => {
    // The kernel released every dead hook's lock: the next one gets it.
    const { last, lastCall, final: saved } = await killExperiment();
    assert.equal(last.code, 2, last.stderr);
    const final = saved.state.retries;
    assert.equal(final[lastCall], 1);
    assert.equal(
      Object.keys(final).filter((k) => k.startsWith("toolu_seed_")).length,
      20_000,
    );
  },
);

function kill(pid: number): void {
  try {
    Deno.kill(pid, "SIGKILL");
  } catch {
    // It already finished.
  }
}

/**
 * Kills `pid` the moment it starts saving: its temporary state file shows in
 * `dir`, or (for a writer that is not atomic) the state file itself changes.
 *
 * @returns True when the kill landed between temp file and rename.
 */
async function killWhenWriting(
  pid: number,
  dir: string,
  statePath: string,
  timeoutMs: number,
): Promise<boolean> {
  const deadline = performance.now() + timeoutMs;
  const ours = (name: string) =>
    name.includes(`.${pid}.`) && name.endsWith(".tmp");
  const hasTemp = async () => {
    for await (const entry of Deno.readDir(dir)) {
      if (ours(entry.name)) return true;
    }
    return false;
  };
  const stamp = async () => {
    const info = await Deno.stat(statePath);
    return `${info.ino} ${info.size} ${info.mtime?.getTime()}`;
  };
  const original = await stamp();
  while (performance.now() < deadline) {
    if (await hasTemp() || await stamp() !== original) {
      kill(pid);
      return await hasTemp();
    }
    await new Promise((resolve) => setTimeout(resolve, 0));
  }
  return false;
}

const APPENDER = fileURLToPath(
  new URL("../support/append_events.ts", import.meta.url),
);

/** Runs `writers` appender processes at once, `count` events each. */
async function appendConcurrently(
  cwd: string,
  writers: number,
  count: number,
  maxBytes: number,
): Promise<void> {
  const runs = Array.from(
    { length: writers },
    (_, w) =>
      new Deno.Command(Deno.execPath(), {
        args: [
          "run",
          ...HOOK_PERMISSION_FLAGS,
          APPENDER,
          `w${w}`,
          String(count),
          String(maxBytes),
        ],
        cwd,
        stdout: "null",
        stderr: "piped",
      }).output(),
  );
  for (const output of await Promise.all(runs)) {
    assert.ok(output.success, new TextDecoder().decode(output.stderr));
  }
}

interface LoggedEvent {
  writer: string;
  seq: number;
  line: string;
}

/** Every line of a log file, parsed; fails on a torn or interleaved line. */
async function readLog(path: string): Promise<LoggedEvent[]> {
  const text = await Deno.readTextFile(path).catch(() => "");
  assert.ok(text === "" || text.endsWith("\n"), `${path} ends with a newline`);
  return text.split("\n").filter((l) => l !== "").map((line) => {
    const event = JSON.parse(line);
    const keys = Object.keys(event);
    assert.deepEqual(keys, [...keys].sort(), "keys sorted: the line is whole");
    assert.equal(event.event, "healthy_stop");
    return { writer: event.writer, seq: event.seq, line };
  });
}

/** Within one file, each writer's lines appear in the order it wrote them. */
function assertWriterOrder(events: LoggedEvent[], file: string): void {
  const last = new Map<string, number>();
  for (const e of events) {
    assert.ok(
      e.seq > (last.get(e.writer) ?? -1),
      `${file}: ${e.writer} out of order`,
    );
    last.set(e.writer, e.seq);
  }
}

Deno.test(
  skipWhere(
    "8 processes appending 150 events each to one log: every line whole, none lost",
    APPENDS_FROM_PROCESSES,
  ),
  async () => {
    await using s = await tempSandbox();
    await appendConcurrently(s.project, 8, 150, 100 << 20);
    const events = await readLog(
      join(s.project, ".claude/stall_watch/events.jsonl"),
    );
    assert.equal(events.length, 8 * 150);
    assertWriterOrder(events, "events.jsonl");
    for (let w = 0; w < 8; w++) {
      assert.deepEqual(
        events.filter((e) => e.writer === `w${w}`).map((e) => e.seq),
        Array.from({ length: 150 }, (_, i) => i),
      );
    }
  },
);

Deno.test(
  skipWhere(
    "8 processes appending across many rotations: every line whole, no duplicates, files stay bounded",
    APPENDS_FROM_PROCESSES,
  ),
  async () => {
    await using s = await tempSandbox();
    const maxBytes = 16 * 1024;
    await appendConcurrently(s.project, 8, 150, maxBytes);
    const dir = join(s.project, ".claude/stall_watch");
    const current = await readLog(join(dir, "events.jsonl"));
    const previous = await readLog(join(dir, "events.jsonl.1"));
    assert.ok(previous.length > 0, "the log rotated");
    assertWriterOrder(current, "events.jsonl");
    assertWriterOrder(previous, "events.jsonl.1");
    const seen = new Set<string>();
    for (const e of [...previous, ...current]) {
      const key = `${e.writer}/${e.seq}`;
      assert.ok(!seen.has(key), `${key} logged twice`);
      seen.add(key);
    }
    // Each writer checks the size before its append, so 8 writers can each
    // overshoot by at most one line.
    const longest = Math.max(
      ...[...current, ...previous].map((e) => e.line.length + 1),
    );
    for (const name of ["events.jsonl", "events.jsonl.1"]) {
      const { size } = await Deno.stat(join(dir, name));
      assert.ok(size <= maxBytes + 8 * longest, `${name} is ${size} bytes`);
    }
  },
);

Deno.test("a session lock held by a stuck hook makes the next one allow the stop after its 3 s wait, with one line and a state_unavailable event", async () => {
  await using s = await tempSandbox();
  await Deno.writeTextFile(s.transcript, pendingTranscript("toolu_stuck"));
  const dir = join(s.project, ".claude/stall_watch");
  await Deno.mkdir(dir, { recursive: true });
  const stdin = stopPayload("stuck", s.transcript, s.project);
  const lock = await Deno.open(join(dir, "stuck.lock"), {
    create: true,
    write: true,
  });
  try {
    await lock.lock(true);
    const blocked = await runBounded({
      cwd: s.project,
      stdin,
      env: { STALL_WATCH_LOG_FILE: ".claude/stall_watch/events.jsonl" },
    });
    assert.equal(blocked.code, 0);
    assert.equal(blocked.stdout, "");
    assert.match(
      blocked.stderr,
      /^stall_watch: cannot use session state \(Timed out after \d+ ms waiting for the lock ".*stuck\.lock"\); allowing the stop rather than nudging without a retry budget\n$/,
    );
    assert.ok(blocked.elapsedMs >= 3000, "it waited for the holder");
    // The log says why this stall went unnudged, not just that it was seen.
    const logged = (await Deno.readTextFile(join(dir, "events.jsonl")))
      .trimEnd().split("\n").map((line) => JSON.parse(line));
    assert.deepEqual(logged.map((e) => e.event), [
      "stall_detected",
      "state_unavailable",
    ]);
    assert.match(
      logged[1].reason,
      /^Timed out after \d+ ms waiting for the lock/,
    );
    assert.equal(
      await Deno.lstat(join(dir, "stuck.json")).then(() => true, () => false),
      false,
      "nothing was counted",
    );
  } finally {
    // Closing releases the lock (unlocking by hand fails under Wine).
    lock.close();
  }
  const freed = await runBounded({ cwd: s.project, stdin });
  assert.equal(freed.code, 2, "once released, the next hook nudges");
});
