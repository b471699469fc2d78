/**
 * Real Codex (the pinned release) offline against the fake Responses API:
 * what its Stop hook is given in each stall the port must catch, and what
 * stall-watch's rollout reader makes of the rollout as the hook saw it
 * (a copy taken when the hook started). Each scenario also asserts what
 * the model received. The Stop hook here is the tier's logging wrapper
 * around a plain script; stall-watch's own Codex door (`codex-stop`) is
 * the hook in `stop_door_test.ts`.
 */

import assert from "node:assert/strict";
import { scanCodexTurn } from "../../src/codex/_current_turn.ts";
import { announcedStop } from "../../src/detection/announcement.ts";
import { classifyTurn } from "../../src/detection/classify.ts";
import {
  callOutput,
  empty,
  execCall,
  queue,
  type Script,
  sentCallId,
  text,
  userTexts,
} from "./support/fake_responses.ts";
import {
  blockOnceHook,
  type CodexSession,
  type StopRun,
} from "./support/codex_session.ts";
import { codexTest } from "./support/tier.ts";

/** What the reader and classifier make of a Stop run's rollout copy. */
async function judgeAtStop(session: CodexSession, stop: StopRun) {
  assert.ok(stop.rolloutAtStart !== null, "the hook saw a rollout");
  const path = `${session.root}/judged.jsonl`;
  await Deno.writeTextFile(path, stop.rolloutAtStart);
  const turnId = String(stop.payload.turn_id);
  const scan = await scanCodexTurn(path, { turnId });
  assert.ok(scan?.reachedStart, "the turn's task_started was found");
  assert.equal(scan.endedOnFile, false, "task_complete comes after Stop");
  const verdict = classifyTurn(scan.entries, { backgroundTasks: [] });
  const announced = announcedStop(
    scan.entries,
    { backgroundTasks: [] },
    verdict.signatures.length > 0,
  );
  return [
    ...verdict.signatures.map((s) => `${s.kind} ${s.toolName}`),
    ...(announced ? ["announced_no_call"] : []),
  ];
}

function scenario(
  name: string,
  script: Script,
  fn: (session: CodexSession) => Promise<void>,
): void {
  codexTest(name, { script }, fn);
}

scenario(
  "a healthy turn: the call's output reaches the model, which answers; Stop sees a healthy turn",
  queue([execCall("echo hello"), text("It said hello.")]),
  async (session) => {
    const run = await session.runExec("run echo hello");
    assert.equal(run.code, 0, run.stderr);
    const [first, second] = session.api.mainRequests();
    assert.match(
      callOutput(second, sentCallId(first)) ?? "",
      /Process exited with code 0\n.*\nOutput:\nhello\n$/s,
    );
    const [stop, ...more] = await session.stopRuns();
    assert.equal(more.length, 0);
    assert.equal(stop?.payload.last_assistant_message, "It said hello.");
    assert.equal(stop?.payload.stop_hook_active, false);
    assert.equal(
      stop?.cwd,
      session.project,
      "the hook runs in the session's cwd",
    );
    assert.ok(!stop?.envNames.includes("CLAUDE_PROJECT_DIR"));
    assert.deepEqual(await judgeAtStop(session, stop!), []);
    assert.equal(session.api.overruns, 0);
  },
);

scenario(
  "a call, then a reply with no output item: Stop has last_assistant_message null, the reader finds the missing follow-up",
  queue([execCall("echo hello"), empty()]),
  async (session) => {
    assert.equal((await session.runExec("run echo hello")).code, 0);
    const [first, second] = session.api.mainRequests();
    assert.match(callOutput(second, sentCallId(first)) ?? "", /hello/);
    const [stop] = await session.stopRuns();
    assert.equal(stop?.payload.last_assistant_message, null);
    assert.deepEqual(await judgeAtStop(session, stop!), [
      "missing_followup exec_command",
    ]);
  },
);

scenario(
  "an exec_command that prints nothing: the model gets the header and nothing after Output:, the reader an empty result",
  queue([execCall("true"), empty()]),
  async (session) => {
    assert.equal((await session.runExec("run true")).code, 0);
    const [first, second] = session.api.mainRequests();
    assert.match(callOutput(second, sentCallId(first)) ?? "", /\nOutput:\n$/);
    const [stop] = await session.stopRuns();
    assert.deepEqual(await judgeAtStop(session, stop!), [
      "empty_tool_result exec_command",
    ]);
  },
);

scenario(
  "work done, then an announcement and a stop without a call: the reader finds it announced",
  queue([
    execCall("ls -a", "Looking first."),
    text("The folder is empty. Let me run the tests now."),
  ]),
  async (session) => {
    assert.equal((await session.runExec("run the tests")).code, 0);
    const [stop] = await session.stopRuns();
    assert.equal(
      stop?.payload.last_assistant_message,
      "The folder is empty. Let me run the tests now.",
    );
    assert.deepEqual(await judgeAtStop(session, stop!), ["announced_no_call"]);
  },
);

scenario(
  "a block by exit 2: the reason reaches the model as a <hook_prompt> user message in the same turn, the re-stop has stop_hook_active and a healthy turn",
  queue([
    execCall("echo hello"),
    empty(),
    text("The command said hello."),
  ]),
  async (session) => {
    await session.setStopHook(blockOnceHook("stall-watch test: answer it."));
    assert.equal((await session.runExec("run echo hello")).code, 0);
    const requests = session.api.mainRequests();
    assert.equal(requests.length, 3);
    const nudge = userTexts(requests[2]).at(-1) ?? "";
    assert.match(
      nudge,
      /^<hook_prompt hook_run_id="stop:0:[^"]*hooks\.json">stall-watch test: answer it\.<\/hook_prompt>$/,
    );
    const [blocked, again] = await session.stopRuns();
    assert.equal(blocked?.code, 2);
    assert.equal(again?.code, 0);
    assert.equal(again?.payload.turn_id, blocked?.payload.turn_id);
    assert.equal(blocked?.payload.stop_hook_active, false);
    assert.equal(again?.payload.stop_hook_active, true);
    assert.deepEqual(await judgeAtStop(session, blocked!), [
      "missing_followup exec_command",
    ]);
    assert.deepEqual(await judgeAtStop(session, again!), []);
  },
);

scenario(
  "--ephemeral: no rollout is written, and Stop's transcript_path is null",
  queue([execCall("echo hello"), empty()]),
  async (session) => {
    const run = await session.runExec("run echo hello", { ephemeral: true });
    assert.equal(run.code, 0);
    const [stop] = await session.stopRuns();
    assert.equal(stop?.payload.transcript_path, null);
    assert.equal(typeof stop?.payload.turn_id, "string");
    assert.deepEqual(await session.rollouts(), []);
  },
);
