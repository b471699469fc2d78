/**
 * The hook in process, through `main()` with a fake io: what needs a
 * controllable clock (transcript lag) or a terminal.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { main } from "../../src/cli.ts";
import { fakeIO } from "../support/fake_io.ts";
import {
  tempProject,
  type TempTranscript,
  tempTranscript,
} from "../support/temp_project.ts";
import { FIXTURES_DIR } from "../support/cases.ts";
import { failingUnlock } from "../support/failing_unlock.ts";
import {
  asPreLastMessageClient,
  assistantTextLine,
  forkStopPayload,
  pendingTranscript,
  preLastMessageStopPayload,
  resultLine,
  stopPayload,
} from "../support/transcripts.ts";

/** A transcript whose call was answered but whose follow-up has not reached the file. */
function laggingTranscript(): Promise<TempTranscript> {
  return tempTranscript(
    asPreLastMessageClient(
      pendingTranscript("toolu_lag") + resultLine("toolu_lag", "8080"),
    ),
  );
}

Deno.test("hook waits for a lagging transcript and allows once the follow-up lands", async () => {
  await using project = await laggingTranscript();
  const { dir, path: transcript } = project;
  let appended = false;
  const io = fakeIO({
    cwd: dir,
    env: { STALL_WATCH_LAG_WAIT_MS: "300" },
    stdin: JSON.stringify(preLastMessageStopPayload("lag", transcript, dir)),
    onSleep: async () => {
      if (appended) return;
      appended = true;
      // Written by the same client as the rest: one older than 2.1.47.
      await Deno.writeTextFile(
        transcript,
        asPreLastMessageClient(assistantTextLine("Port changed to 8081.")),
        { append: true },
      );
    },
  });
  const started = io.now();
  assert.equal(await main([], io), 0);
  assert.deepEqual([io.stdout.join(""), io.stderr.join("")], ["", ""]);
  assert.ok(
    io.now() - started < 300,
    "stopped waiting once the file grew and the turn was healthy",
  );
});

Deno.test("hook blocks after the bounded lag wait when the transcript does not grow (an old or unknown version)", async () => {
  await using project = await laggingTranscript();
  const { dir, path: transcript } = project;
  for (const unversioned of [false, true]) {
    if (unversioned) {
      const text = await Deno.readTextFile(transcript);
      await Deno.writeTextFile(
        transcript,
        text.replace(/"version":"[^"]*",/g, ""),
      );
    }
    const io = fakeIO({
      cwd: dir,
      env: { STALL_WATCH_LAG_WAIT_MS: "300" },
      stdin: JSON.stringify(
        preLastMessageStopPayload(`lag-${unversioned}`, transcript, dir),
      ),
    });
    const started = io.now();
    assert.equal(await main([], io), 2);
    assert.equal(io.now() - started, 300, "waited exactly the bound");
    assert.match(
      io.stderr.join(""),
      /^stall_watch: 1 missing follow-up in /,
    );
  }
});

Deno.test("hook blocks a current payload at once: a missing last_assistant_message means no text, not lag", async () => {
  await using project = await tempProject();
  // Real 2.1.332: the file and the payload at the first Stop after an
  // empty MCP result (prompt_id, background_tasks, no last message).
  const transcript = join(project.dir, "session.jsonl");
  await Deno.copyFile(
    join(FIXTURES_DIR, "real", "real_empty_mcp_result_no_followup.jsonl"),
    transcript,
  );
  const payload = {
    session_id: "dfdb1a5e",
    transcript_path: transcript,
    cwd: project.dir,
    prompt_id: "dfdb1a5e-873b-47c0-a9ef-61ef9f632fb8",
    permission_mode: "default",
    effort: { level: "medium" },
    hook_event_name: "Stop",
    stop_hook_active: false,
    background_tasks: [],
    session_crons: [],
  };
  const variants: [string, Record<string, unknown>][] = [
    ["the real payload", payload],
    // Without the later fields, the transcript's version (2.1.332) tells.
    ["no prompt_id or background_tasks", {
      ...payload,
      prompt_id: undefined,
      background_tasks: undefined,
    }],
  ];
  for (const [what, stdin] of variants) {
    let sleeps = 0;
    const io = fakeIO({
      cwd: project.dir,
      env: { STALL_WATCH_LAG_WAIT_MS: "300" },
      stdin: JSON.stringify({ ...stdin, session_id: what }),
      onSleep: () => void sleeps++,
    });
    assert.equal(await main([], io), 2, what);
    assert.equal(sleeps, 0, `${what}: no lag wait`);
    assert.match(io.stderr.join(""), /^stall_watch: 1 empty tool_result in /);
  }
});

Deno.test("hook does not wait when last_assistant_message is present", async () => {
  await using project = await laggingTranscript();
  const { dir, path: transcript } = project;
  const payload = {
    ...preLastMessageStopPayload("lag", transcript, dir),
    last_assistant_message: "",
  };
  const io = fakeIO({
    cwd: dir,
    env: { STALL_WATCH_LAG_WAIT_MS: "300" },
    stdin: JSON.stringify(payload),
  });
  const started = io.now();
  assert.equal(await main([], io), 2);
  assert.equal(io.now(), started);
  const proof = {
    ...payload,
    last_assistant_message: "The port is 8081 now.",
  };
  const lagging = fakeIO({ cwd: dir, stdin: JSON.stringify(proof) });
  assert.equal(
    await main([], lagging),
    0,
    "a new final message proves the follow-up",
  );
});

Deno.test("hook with stop_hook_active policy 'check' judges the turn anyway", async () => {
  await using project = await laggingTranscript();
  const { dir, path: transcript } = project;
  const payload = {
    ...stopPayload("active", transcript, dir),
    stop_hook_active: true,
  };
  const seed = fakeIO({ cwd: dir, stdin: JSON.stringify(payload) });
  assert.equal(await main([], seed), 0, "default: the seed's short-circuit");
  const check = fakeIO({
    cwd: dir,
    env: { STALL_WATCH_STOP_HOOK_ACTIVE: "check" },
    stdin: JSON.stringify(payload),
  });
  assert.equal(await main([], check), 2);
});

Deno.test("hook allows the stop with one line and a budget_exhausted event when a budget runs out", async () => {
  await using project = await laggingTranscript();
  const { dir, path: transcript } = project;
  // 101 pending calls: more stalls than one nudge may carry.
  const calls = Array.from({ length: 101 }, (_, i) => ({
    type: "tool_use",
    id: `toolu_${i}`,
    name: "Read",
    input: {},
  }));
  await Deno.writeTextFile(
    transcript,
    JSON.stringify({
      type: "user",
      message: { role: "user", content: "Read them all." },
    }) + "\n" +
      JSON.stringify({
        type: "assistant",
        message: { id: "msg_1", role: "assistant", content: calls },
      }) + "\n",
  );
  const io = fakeIO({
    cwd: dir,
    env: { STALL_WATCH_LOG_FILE: ".claude/stall_watch/events.jsonl" },
    stdin: JSON.stringify(stopPayload("budget", transcript, dir)),
  });
  assert.equal(await main([], io), 0);
  assert.deepEqual(io.stdout, []);
  assert.deepEqual(io.stderr, [
    "stall_watch: budget exhausted (100 stalls) before the turn could be " +
    "judged; stop allowed\n",
  ]);
  const log = await Deno.readTextFile(
    join(dir, ".claude/stall_watch/events.jsonl"),
  );
  const events = log.trim().split("\n").map((l) => JSON.parse(l));
  assert.deepEqual(
    events.map((e) => [e.event, e.budget, e.limit, e.reason]),
    [[
      "budget_exhausted",
      "signatures",
      100,
      "the 100 stalls budget ran out before the turn could be judged",
    ]],
  );
});

Deno.test("hook tells the user which budget left the turn unjudged: lines, background tasks", async () => {
  await using project = await laggingTranscript();
  const { dir, path: transcript } = project;
  const pending = pendingTranscript("toolu_far");
  const cases = [
    {
      what: "250,000 blank lines after the pending call",
      text: pending + "\n".repeat(250_000),
      payload: {},
      line: "stall_watch: budget exhausted (250000 lines) before the turn " +
        "could be judged; stop allowed\n",
      budget: ["lines", 250_000],
    },
    {
      what: "10,001 background tasks",
      text: pending,
      payload: {
        background_tasks: Array.from(
          { length: 10_001 },
          (_, i) => ({ id: `task_${i}`, status: "running" }),
        ),
      },
      line: "stall_watch: budget exhausted (10000 background tasks) " +
        "before the turn could be judged; stop allowed\n",
      budget: ["background_tasks", 10_000],
    },
  ];
  for (const c of cases) {
    await Deno.writeTextFile(transcript, c.text);
    const log = join(dir, ".claude/stall_watch/events.jsonl");
    await Deno.remove(log).catch(() => {});
    const io = fakeIO({
      cwd: dir,
      env: { STALL_WATCH_LOG_FILE: ".claude/stall_watch/events.jsonl" },
      stdin: JSON.stringify({
        ...stopPayload("budget", transcript, dir),
        ...c.payload,
      }),
    });
    assert.equal(await main([], io), 0, c.what);
    assert.deepEqual(io.stderr, [c.line], c.what);
    const events = (await Deno.readTextFile(log)).trim().split("\n")
      .map((l) => JSON.parse(l));
    assert.deepEqual(
      events.map((e) => [e.event, e.budget, e.limit]),
      [["budget_exhausted", ...c.budget]],
      c.what,
    );
  }
  // Within both budgets the same call is nudged.
  await Deno.writeTextFile(transcript, pending + "\n".repeat(1000));
  const io = fakeIO({
    cwd: dir,
    stdin: JSON.stringify(stopPayload("budget", transcript, dir)),
  });
  assert.equal(await main([], io), 2);
});

Deno.test("hook prints usage instead of waiting when stdin is a terminal", async () => {
  const io = fakeIO({ cwd: "/", stdinIsTerminal: true });
  assert.equal(await main([], io), 64);
  assert.match(
    io.stderr.join(""),
    /^stall-watch: no command given, and stdin is a terminal: .*\n\nstall-watch \d+\.\d+\.\d+: a Claude Code Stop hook/,
  );
  assert.match(io.stderr.join(""), /stall-watch < payload\.json/);
});

Deno.test("an unexpected error is one line and exit 3, never a block", async () => {
  const io = fakeIO({ cwd: "/", stdin: "{}" });
  io.readStdin = () => Promise.reject(new RangeError("boom\n    at somewhere"));
  assert.equal(await main([], io), 3);
  assert.deepEqual(io.stderr, ["stall-watch: internal error: boom\n"]);
});

Deno.test("hook allows the SubagentStop of Claude Code's own fork at once and silently, though its file never exists", async () => {
  await using project = await tempProject();
  const io = fakeIO({
    cwd: project.dir,
    env: { STALL_WATCH_LAG_WAIT_MS: "1000" },
    stdin: JSON.stringify(forkStopPayload(project.dir)),
  });
  const started = io.now();
  assert.equal(await main([], io), 0);
  assert.deepEqual([io.stdout.join(""), io.stderr.join("")], ["", ""]);
  assert.equal(io.now(), started, "no wait for a file that is never written");
});

Deno.test("hook blocks when the session lock will not unlock (Windows Deno under Wine), logs it, and the cap still holds", async () => {
  await using project = await tempTranscript(pendingTranscript("toolu_w"));
  const { dir, path: transcript } = project;
  using _ = failingUnlock();
  const run = async () => {
    const io = fakeIO({
      cwd: dir,
      env: { STALL_WATCH_LOG_FILE: ".claude/stall_watch/events.jsonl" },
      stdin: JSON.stringify(stopPayload("wine", transcript, dir)),
      // The real clock: the daily sweep must not take this state for stale.
      nowMs: Date.now(),
    });
    return [await main([], io), io.stderr.join("")] as const;
  };
  for (let nudge = 1; nudge <= 3; nudge++) {
    const [code, stderr] = await run();
    assert.equal(code, 2, `nudge ${nudge} blocks`);
    assert.match(stderr, /^stall_watch: 1 pending tool_use in /);
  }
  const [code, stderr] = await run();
  assert.deepEqual([code, stderr], [
    0,
    "stall_watch: retry cap reached (3/3) for toolu_w; recovery skipped\n",
  ]);
  const events = (await Deno.readTextFile(
    join(dir, ".claude/stall_watch/events.jsonl"),
  )).trim().split("\n").map((l) => JSON.parse(l));
  assert.deepEqual(
    events.filter((e) => e.event !== "stall_detected").map((
      e,
    ) => [e.event, e.lock_release_error]),
    [
      ["recovery_dispatched", "Lock violation."],
      ["recovery_dispatched", "Lock violation."],
      ["recovery_dispatched", "Lock violation."],
      ["retry_cap_hit", "Lock violation."],
    ],
  );
});
