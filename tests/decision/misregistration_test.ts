/**
 * Registered under the wrong event: the Stop hook run for PreToolUse,
 * UserPromptSubmit or PostToolUse (and `watch` for anything but PostToolUse
 * and PostToolUseFailure) must never block: exit 0, and tell the user once
 * per session what is misregistered. Payloads are the real 2.1.332
 * PostToolUse payload (`../shared/reference/real/healthy_tool`) reshaped to
 * each event; the transcript holds an unanswered call, which is what a
 * PreToolUse hook sees before every tool call.
 */

import assert from "node:assert/strict";
import { main } from "../../src/cli.ts";
import { runWatch } from "../../src/watchdog/watchdog.ts";
import { HANDLER_EVENTS } from "../../src/claude_client/hook_events.ts";
import { HOOK_EVENTS } from "../../src/install/hook_command.ts";
import { fakeIO } from "../support/fake_io.ts";
import { runStallWatch } from "../support/hook_process.ts";
import { tempTranscript } from "../support/temp_project.ts";
import { pendingTranscript } from "../support/transcripts.ts";

const TOOL_ID = "toolu_016da66ccfda834effbce316";
const SESSION = "e7cbc79b-8013-4653-b2a4-da16c8c87ab9";

/** The real PostToolUse payload's fields, as each event carries them. */
function payloadFor(event: string, transcript: string, cwd: string) {
  const common = {
    session_id: SESSION,
    transcript_path: transcript,
    cwd,
    prompt_id: "9d9e033f-c4bc-40e2-b68a-eb0dbd7467eb",
    permission_mode: "default",
    effort: { level: "medium" },
    hook_event_name: event,
  };
  const call = {
    tool_name: "mcp__stub__echo",
    tool_input: { text: "forty-two" },
    tool_use_id: TOOL_ID,
  };
  switch (event) {
    case "PreToolUse":
      return { ...common, ...call };
    case "PostToolUse":
      return {
        ...common,
        ...call,
        tool_response: [{ type: "text", text: "forty-two" }],
        duration_ms: 11,
        mcp_server: { name: "stub", source: "dynamic" },
      };
    case "UserPromptSubmit":
      return { ...common, prompt: "echo forty-two" };
    default:
      return common;
  }
}

function systemMessage(stdout: string): string {
  const parsed = JSON.parse(stdout);
  assert.deepEqual(Object.keys(parsed), ["systemMessage"]);
  return parsed.systemMessage;
}

for (const event of ["PreToolUse", "UserPromptSubmit", "PostToolUse"]) {
  Deno.test(`the Stop hook run for ${event} exits 0 without blocking and says so once per session`, async () => {
    await using project = await tempTranscript(pendingTranscript(TOOL_ID));
    const { dir, path: transcript } = project;
    const stdin = JSON.stringify(payloadFor(event, transcript, dir));
    const first = fakeIO({ cwd: dir, stdin });
    assert.equal(await main([], first), 0);
    assert.equal(first.stderr.join(""), "");
    const notice = systemMessage(first.stdout.join(""));
    assert.equal(
      notice,
      `stall-watch: The stall-watch hook ran for ${event}, but it is for Stop and SubagentStop only, so it did nothing. Remove it from "hooks.${event}" in your Claude Code settings ("stall-watch doctor" names the file) and run "stall-watch install" to register it where it belongs.`,
    );
    for (let i = 0; i < 2; i++) {
      const again = fakeIO({ cwd: dir, stdin });
      assert.equal(await main([], again), 0);
      assert.deepEqual([again.stdout.join(""), again.stderr.join("")], [
        "",
        "",
      ]);
    }
  });
}

Deno.test("the same stalled transcript still blocks at Stop, and a payload without hook_event_name counts as Stop", async () => {
  await using project = await tempTranscript(pendingTranscript(TOOL_ID));
  const { dir, path: transcript } = project;
  const misregistered = fakeIO({
    cwd: dir,
    stdin: JSON.stringify(payloadFor("PreToolUse", transcript, dir)),
  });
  assert.equal(await main([], misregistered), 0);
  for (const event of ["Stop", undefined]) {
    const payload: Record<string, unknown> = payloadFor(
      "Stop",
      transcript,
      dir,
    );
    if (event === undefined) delete payload.hook_event_name;
    payload.session_id = `${SESSION}-${event ?? "none"}`;
    const io = fakeIO({ cwd: dir, stdin: JSON.stringify(payload) });
    assert.equal(await main([], io), 2, `event ${event}`);
    assert.match(io.stderr.join(""), /^stall_watch: 1 pending tool_use in /);
  }
});

Deno.test("each misregistered event is told once, a hostile event name never verbatim", async () => {
  await using project = await tempTranscript(pendingTranscript(TOOL_ID));
  const { dir, path: transcript } = project;
  const run = async (event: string) => {
    const io = fakeIO({
      cwd: dir,
      stdin: JSON.stringify(payloadFor(event, transcript, dir)),
    });
    assert.equal(await main([], io), 0);
    return io.stdout.join("");
  };
  assert.match(await run("PreToolUse"), /ran for PreToolUse/);
  assert.match(await run("UserPromptSubmit"), /ran for UserPromptSubmit/);
  assert.equal(await run("PreToolUse"), "");
  const hostile = systemMessage(await run("\u001b[2J\nrm -rf /"));
  assert.match(hostile, /ran for an unknown event/);
  assert.ok(!hostile.includes("\u001b"));
});

Deno.test("watch run for another event exits 0 at once and says so once per session", async () => {
  await using project = await tempTranscript(pendingTranscript(TOOL_ID));
  const { dir, path: transcript } = project;
  for (const event of ["PreToolUse", "Stop"]) {
    let sleeps = 0;
    const io = fakeIO({ cwd: dir, onSleep: () => void sleeps++ });
    const payload = JSON.stringify(payloadFor(event, transcript, dir));
    const first = await runWatch(payload, io);
    assert.equal(first.exitCode, 0);
    assert.equal(first.stderr, "");
    assert.match(
      systemMessage(first.stdout ?? ""),
      new RegExp(
        `^stall-watch: stall-watch watch ran for ${event}, but it is for PostToolUse and PostToolUseFailure only, so it did nothing\\. .*"stall-watch install --watch"`,
      ),
    );
    const again = await runWatch(payload, io);
    assert.deepEqual(again, { exitCode: 0, stderr: "", stdout: "" });
    assert.equal(sleeps, 0, "no waiting: PreToolUse would hold up the call");
  }
});

Deno.test("the hook as a process under the release flags, run for PreToolUse: exit 0, notice on stdout", async () => {
  await using project = await tempTranscript(pendingTranscript(TOOL_ID));
  const { dir, path: transcript } = project;
  const stdin = JSON.stringify(payloadFor("PreToolUse", transcript, dir));
  const first = await runStallWatch({ cwd: dir, stdin });
  assert.equal(first.code, 0, first.stderr);
  assert.match(systemMessage(first.stdout), /ran for PreToolUse/);
  const second = await runStallWatch({ cwd: dir, stdin });
  assert.deepEqual([second.code, second.stdout, second.stderr], [0, "", ""]);
});

Deno.test("the events the handlers act on are the ones install registers them for", () => {
  assert.deepEqual(
    [...HANDLER_EVENTS.hook, ...HANDLER_EVENTS.watch],
    [...HOOK_EVENTS],
  );
});
