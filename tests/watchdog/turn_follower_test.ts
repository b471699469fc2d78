/**
 * The watchdog's incremental reader: the current turn once from the end,
 * then only appended bytes, with the metadata lines the watcher reasons
 * with, inside a byte budget and a stop predicate.
 */

import assert from "node:assert/strict";
import fc from "fast-check";
import { scanCurrentTurn } from "../../src/transcript/tail_scan.ts";
import { TurnFollower } from "../../src/watchdog/_turn_follower.ts";
import { callState } from "../../src/watchdog/_watch_state.ts";
import { requestOpen } from "../../src/watchdog/_watch_loop.ts";
import { fuzzParameters } from "../support/fuzz.ts";
import { tempProject } from "../support/temp_project.ts";
import { newId, SessionTranscript } from "../support/watch_session.ts";

const never = () => false;

/** Appends a prompt, a Bash call and its result; returns the call's id. */
async function answeredTurn(t: SessionTranscript): Promise<string> {
  const id = newId("toolu_");
  await t.append(
    t.prompt("Run the tests."),
    t.toolUse(id, "Bash", { command: "npm test" }),
    t.result(id, "ok"),
  );
  return id;
}

function follow(t: SessionTranscript, id: string, over = {}): TurnFollower {
  return new TurnFollower(t.path, { promptId: null, toolUseId: id, ...over });
}

Deno.test("TurnFollower.look() reads only what was appended since its last look", async () => {
  await using project = await tempProject();
  const t = new SessionTranscript(project.dir);
  const id = newId("toolu_");
  const prompt = t.prompt("Run the tests.");
  const result = t.result(id, "Tests  48 passed (48)");
  await t.append(
    prompt,
    t.toolUse(id, "Bash", { command: "npm test" }),
    result,
  );
  const follower = follow(t, id);
  assert.equal(await follower.look(never), true);
  assert.equal(callState(follower.entries, id).kind, "answered");
  assert.equal(await follower.look(never), false, "no growth, no read");
  // Blank out the result in place: a reader that read the turn again
  // would lose it; one that reads only appended bytes keeps it.
  const bytes = await Deno.readFile(t.path);
  const at = new TextDecoder().decode(bytes).indexOf(result);
  bytes.fill(0x20, at, at + result.length - 1);
  await Deno.writeFile(t.path, bytes);
  await t.append(t.attachment());
  assert.equal(await follower.look(never), true);
  assert.equal(callState(follower.entries, id).kind, "answered");
  await t.append(t.text("All 48 tests pass."));
  await follower.look(never);
  assert.equal(callState(follower.entries, id).kind, "followed_up");
});

Deno.test("TurnFollower.look() sees a result, a new turn and a rewritten file", async () => {
  await using project = await tempProject();
  const t = new SessionTranscript(project.dir);
  const id = newId("toolu_");
  await t.append(
    t.prompt("Run the tests."),
    t.toolUse(id, "Bash", { command: "npm test" }),
  );
  const follower = follow(t, id);
  await follower.look(never);
  assert.equal(callState(follower.entries, id).kind, "awaiting_result");
  // Half a line: an unfinished write is not read yet.
  const result = t.result(id, "ok");
  await Deno.writeTextFile(t.path, result.slice(0, 40), { append: true });
  await follower.look(never);
  assert.equal(callState(follower.entries, id).kind, "awaiting_result");
  await Deno.writeTextFile(t.path, result.slice(40), { append: true });
  await follower.look(never);
  assert.equal(callState(follower.entries, id).kind, "answered");
  assert.equal(follower.newTurn, false);
  await t.append(t.prompt("Now deploy."));
  await follower.look(never);
  assert.equal(follower.newTurn, true);
  assert.deepEqual(follower.entries, []);
  // A shorter file (rewritten) is read afresh from its end.
  await Deno.writeTextFile(
    t.path,
    t.prompt("Again.") + t.toolUse(id, "Bash", {}) + t.result(id, "ok"),
  );
  await follower.look(never);
  assert.equal(follower.newTurn, false);
  assert.equal(callState(follower.entries, id).kind, "answered");
});

Deno.test("TurnFollower marks the api-request, turn_duration and stop_hook_summary lines after the result", async () => {
  await using project = await tempProject();
  const t = new SessionTranscript(project.dir);
  const id = newId("toolu_");
  await t.append(
    t.prompt("Run the tests."),
    t.apiRequest(),
    t.toolUse(id, "Bash", { command: "npm test" }),
    t.result(id, "ok"),
    t.apiRequest(),
  );
  // Started after the result was written: the lines after it are re-read.
  const follower = follow(t, id);
  await follower.look(never);
  const state = callState(follower.entries, id);
  assert.ok(state.kind === "answered");
  const open = () =>
    requestOpen(follower.marks, follower.entries, state.resultOffset);
  assert.equal(open(), true, "a request went out after the result");
  await t.append(t.attachment());
  await follower.look(never);
  assert.equal(open(), true, "metadata does not answer it");
  await t.append(t.apiError());
  await follower.look(never);
  assert.equal(open(), false, "the API error entry ends it");
  await t.append(t.apiRequest(), t.turnDuration());
  await follower.look(never);
  assert.equal(open(), false, "the end of the turn ends it");
  assert.ok(follower.marks.turnEnd > follower.marks.request);
  await t.append(t.apiRequest(), t.stopHookSummary("stall-watch"));
  await follower.look(never);
  assert.equal(open(), false);
  assert.ok(follower.marks.stopSummary > follower.marks.request);
});

Deno.test("TurnFollower.look() keeps to its byte budget and its stop predicate", async () => {
  await using project = await tempProject();
  const t = new SessionTranscript(project.dir);
  const id = await answeredTurn(t);
  const follower = follow(t, id, { lookBudgetBytes: 64 * 1024 });
  await follower.look(never);
  // 1 MiB without a newline, then a follow-up: the budget skips the
  // endless line a look at a time and still finds the line after it.
  await Deno.writeTextFile(t.path, "x".repeat(1024 * 1024) + "\n", {
    append: true,
  });
  await t.append(t.text("Done."));
  let looks = 0;
  while (callState(follower.entries, id).kind === "answered" && looks < 40) {
    await follower.look(never); // no growth: a cut-short look continues
    looks++;
  }
  assert.equal(callState(follower.entries, id).kind, "followed_up");
  assert.ok(looks >= 16, `1 MiB in 64 KiB looks, got ${looks}`);
  // A stop predicate that says stop ends a look before it reads anything.
  await t.append(t.prompt("Next."));
  await follower.look(() => true);
  assert.equal(follower.newTurn, false, "not read yet");
  await follower.look(never);
  assert.equal(follower.newTurn, true);
});

Deno.test("scanCurrentTurn() ends where stopWhen says, and says where complete lines end", async () => {
  await using project = await tempProject();
  const t = new SessionTranscript(project.dir);
  const lines = [t.prompt("Run the tests.")];
  for (let i = 0; i < 2000; i++) {
    const id = newId("toolu_");
    lines.push(t.toolUse(id, "Bash", { command: "ls" }), t.result(id, "ok"));
  }
  await t.append(...lines);
  await Deno.writeTextFile(t.path, '{"type":"assis', { append: true });
  const size = (await Deno.stat(t.path)).size;
  const whole = await scanCurrentTurn(t.path, {
    promptId: null,
    includeSidechains: false,
  });
  assert.ok(whole);
  assert.equal(whole.stopped, false);
  assert.equal(whole.entries.length, 4000);
  assert.equal(whole.endOffset, size - '{"type":"assis'.length);
  let asked = 0;
  const cut = await scanCurrentTurn(t.path, {
    promptId: null,
    includeSidechains: false,
    stopWhen: () => ++asked > 1,
  });
  assert.ok(cut);
  assert.equal(cut.stopped, true);
  assert.equal(cut.reachedStart, false);
  assert.ok(cut.entries.length > 0 && cut.entries.length < 4000);
  assert.ok(cut.bytesScanned < size / 4, "one 64 KiB chunk");
  // A sparse gigabyte without a newline: asked before every chunk.
  const sparse = `${t.path}.sparse`;
  const file = await Deno.open(sparse, { create: true, write: true });
  await file.truncate(1024 ** 3);
  file.close();
  asked = 0;
  const endless = await scanCurrentTurn(sparse, {
    promptId: null,
    includeSidechains: false,
    stopWhen: () => ++asked > 16,
  });
  assert.equal(endless?.stopped, true);
  assert.equal(asked, 18, "16 chunks read (and one last ask), not 16384");
});

Deno.test("TurnFollower gives up on a turn with more entries than it keeps", async () => {
  await using project = await tempProject();
  const t = new SessionTranscript(project.dir);
  const id = await answeredTurn(t);
  const follower = follow(t, id, { maxEntries: 3 });
  await follower.look(never);
  assert.equal(follower.overflow, false);
  await t.append(t.text("One."), t.text("Two."));
  await follower.look(never);
  assert.equal(follower.overflow, true);
  assert.equal(follower.entries.length, 3, "memory stays bounded");
});

Deno.test("TurnFollower reading only appended bytes sees what a fresh scan of the whole turn sees", async () => {
  // Lines of one turn after the watched call, appended in random pieces
  // (mid-line cuts included), with a look after each piece.
  const kinds = [
    "text",
    "call",
    "result",
    "attachment",
    "request",
    "apiError",
    "turnEnd",
    "long",
  ] as const;
  await fc.assert(
    fc.asyncProperty(
      fc.array(fc.constantFrom(...kinds), { minLength: 1, maxLength: 12 }),
      fc.array(fc.integer({ min: 1, max: 900 }), {
        minLength: 1,
        maxLength: 30,
      }),
      async (lines, cuts) => {
        await using project = await tempProject();
        const t = new SessionTranscript(project.dir);
        const id = await answeredTurn(t);
        const follower = follow(t, id);
        await follower.look(never);
        const other = newId("toolu_");
        const text = lines.map((kind) => {
          switch (kind) {
            case "text":
              return t.text("Still working.");
            case "call":
              return t.toolUse(other, "Read", { file_path: "/x" });
            case "result":
              return t.result(other, "contents");
            case "attachment":
              return t.attachment();
            case "request":
              return t.apiRequest();
            case "apiError":
              return t.apiError();
            case "turnEnd":
              return t.turnDuration();
            case "long":
              return t.result(other, "x".repeat(100_000));
          }
        }).join("");
        let at = 0;
        for (const cut of [...cuts, text.length]) {
          const next = Math.min(text.length, at + cut);
          await Deno.writeTextFile(t.path, text.slice(at, next), {
            append: true,
          });
          at = next;
          await follower.look(never);
          if (at === text.length) break;
        }
        const fresh = await scanCurrentTurn(t.path, {
          promptId: null,
          includeSidechains: false,
        });
        assert.deepEqual(follower.entries, fresh?.entries);
      },
    ),
    fuzzParameters(25),
  );
});

Deno.test("TurnFollower.look() takes a prompt that lands before the watched call for the start of its turn, not a new one", async () => {
  await using project = await tempProject();
  const t = new SessionTranscript(project.dir);
  // The file holds the previous turn; the watched call's turn has not
  // reached it yet when the watcher starts (Claude Code 2.1.145 starts
  // PostToolUse hooks before the turn's lines are written).
  const old = await answeredTurn(t);
  await t.append(t.text("Done."));
  const id = newId("toolu_");
  const follower = follow(t, id);
  await follower.look(never);
  assert.equal(callState(follower.entries, id).kind, "absent");
  await t.append(
    t.prompt("Now the linter."),
    t.toolUse(id, "Bash", { command: "npm run lint" }),
    t.result(id, "0 problems"),
  );
  await follower.look(never);
  assert.equal(follower.newTurn, false);
  assert.equal(callState(follower.entries, id).kind, "answered");
  assert.equal(callState(follower.entries, old).kind, "absent");
  // Once the call is on file, the next prompt is a new turn.
  await t.append(t.prompt("Thanks."));
  await follower.look(never);
  assert.equal(follower.newTurn, true);
});

Deno.test("TurnFollower keeps the watched call's turn when its prompt line lands after the call and the result (2.1.47 under load)", async () => {
  for (const promptFirstSeen of ["appended", "at start"] as const) {
    await using project = await tempProject();
    const t = new SessionTranscript(project.dir);
    t.stampsPromptId = false; // as 2.1.47 writes: the prompt line decides
    const made = (ms: number) => (t.madeAt = new Date(1_780_000_000_000 + ms));
    made(0);
    await answeredTurn(t);
    await t.append(t.text("Done."));
    const id = newId("toolu_");
    // Made in this order: prompt, call, result. Written: call, result, prompt.
    made(5_000);
    const prompt = t.prompt("Now the linter.");
    made(6_000);
    const call = t.toolUse(id, "Bash", { command: "npm run lint" });
    made(7_000);
    const late = [call, t.result(id, "0 problems"), prompt];
    const follower = follow(t, id);
    if (promptFirstSeen === "appended") {
      await follower.look(never);
      assert.equal(callState(follower.entries, id).kind, "absent");
    }
    await t.append(...late);
    await follower.look(never);
    assert.equal(follower.newTurn, false, promptFirstSeen);
    assert.equal(callState(follower.entries, id).kind, "answered");
    assert.deepEqual(
      follower.entries.map((e) => e.kind),
      ["assistant", "results"],
      "only the entries made after the prompt",
    );
    // A prompt made after the result is a new turn.
    made(9_000);
    await t.append(t.prompt("Thanks."));
    await follower.look(never);
    assert.equal(follower.newTurn, true, promptFirstSeen);
  }
});

Deno.test("TurnFollower keeps a session's first turn when its prompt line lands after the call and the result, all in one look (2.1.47 under load)", async () => {
  await using project = await tempProject();
  const t = new SessionTranscript(project.dir);
  t.stampsPromptId = false;
  const made = (ms: number) => (t.madeAt = new Date(1_780_000_000_000 + ms));
  await t.append(t.attachment()); // the file exists, no turn on it yet
  const id = newId("toolu_");
  made(0);
  const prompt = t.prompt("Run the linter.");
  made(1_000);
  const call = t.toolUse(id, "Bash", { command: "npm run lint" });
  made(2_000);
  const result = t.result(id, "0 problems");
  const follower = follow(t, id);
  await follower.look(never);
  assert.equal(callState(follower.entries, id).kind, "absent");
  await t.append(call, result, prompt);
  await follower.look(never);
  assert.equal(follower.newTurn, false);
  assert.equal(callState(follower.entries, id).kind, "answered");
});

/**
 * Real 2.1.332, interactive, when its watcher judged: the api-request line
 * (22) of the request that carries the echo result landed ahead of the
 * model's reply and the result (23-25), which came through Claude Code's
 * write queue; the request is still open (a slow model).
 */
const AHEAD_FIXTURE = new URL(
  "../../fixtures/real/real_api_request_ahead_of_result_2.1.332.jsonl",
  import.meta.url,
);
const AHEAD_CALL = "toolu_e7bb3d60b5a8740988491dce0";

/** The fixture's lines (1-based `keep`), rearranged, as a transcript file. */
async function aheadTranscript(dir: string, keep: number[]): Promise<string> {
  const lines = (await Deno.readTextFile(AHEAD_FIXTURE)).split("\n");
  const path = `${dir}/transcript.jsonl`;
  await Deno.writeTextFile(
    path,
    keep.map((n) => lines[n - 1] + "\n").join(""),
  );
  return path;
}

/** Whether the follower, after one look, sees the watched call's request open. */
function seesRequestOpen(follower: TurnFollower): boolean {
  const state = callState(follower.entries, AHEAD_CALL);
  assert.equal(state.kind, "answered");
  return state.kind === "answered" &&
    requestOpen(follower.marks, follower.entries, state.resultOffset);
}

const range = (from: number, to: number) =>
  Array.from({ length: to - from + 1 }, (_, i) => from + i);

Deno.test("TurnFollower sees the request open when Claude Code wrote its api-request line ahead of the reply and result (real 2.1.332)", async () => {
  await using project = await tempProject();
  const path = await aheadTranscript(project.dir, range(1, 31));
  const whole = new TurnFollower(path, {
    promptId: null,
    toolUseId: AHEAD_CALL,
  });
  await whole.look(never);
  assert.equal(seesRequestOpen(whole), true, "result on file at the start");

  // The watcher started before the queued entries were written.
  const early = await aheadTranscript(project.dir, range(1, 22));
  const follower = new TurnFollower(early, {
    promptId: null,
    toolUseId: AHEAD_CALL,
  });
  await follower.look(never);
  assert.equal(callState(follower.entries, AHEAD_CALL).kind, "absent");
  const rest = (await Deno.readTextFile(AHEAD_FIXTURE)).split("\n")
    .slice(22, 31).map((line) => line + "\n").join("");
  await Deno.writeTextFile(early, rest, { append: true });
  await follower.look(never);
  assert.equal(seesRequestOpen(follower), true, "result appended later");
});

Deno.test("requestOpen() counts no request made before the result, and none answered", async () => {
  await using project = await tempProject();
  const open = (path: string) => {
    const follower = new TurnFollower(path, {
      promptId: null,
      toolUseId: AHEAD_CALL,
    });
    return follower.look(never).then(() => seesRequestOpen(follower));
  };
  // Without line 22 the newest api-request line is the first request's
  // (19), sent before the result was made: nothing is open.
  const without = range(1, 31).filter((n) => n !== 22);
  assert.equal(await open(await aheadTranscript(project.dir, without)), false);
  // In file order (the line after the result) it is open, and an entry
  // after the line is what came of it.
  const inOrder = [...range(1, 21), 23, 24, 25, 22, ...range(26, 31)];
  assert.equal(await open(await aheadTranscript(project.dir, inOrder)), true);
  const lines = (await Deno.readTextFile(AHEAD_FIXTURE)).split("\n");
  const apiError = JSON.stringify({
    ...JSON.parse(lines[23] as string),
    uuid: crypto.randomUUID(),
    timestamp: "2026-12-02T00:40:19.000Z",
    isApiErrorMessage: true,
    message: {
      id: crypto.randomUUID(),
      model: "<synthetic>",
      role: "assistant",
      type: "message",
      content: [{ type: "text", text: "API Error: 500" }],
    },
  });
  const answered = await aheadTranscript(project.dir, range(1, 31));
  await Deno.writeTextFile(answered, apiError + "\n", { append: true });
  assert.equal(await open(answered), false, "its API error came back");
});

/**
 * A user line of `t`'s shape with `fields` over a prompt's (the session's
 * promptId left as it was unless `fields` names one).
 */
function userLine(t: SessionTranscript, fields: Record<string, unknown>) {
  const promptId = t.promptId;
  const line = JSON.parse(t.prompt("x"));
  t.promptId = promptId;
  return JSON.stringify({ ...line, promptId, ...fields }) + "\n";
}

Deno.test("TurnFollower keeps following the turn through a command the model launched (SlashCommand, Skill) and a local command typed meanwhile, and ends at a wake-up the model answers", async () => {
  await using project = await tempProject();
  const t = new SessionTranscript(project.dir);
  const id = await answeredTurn(t);
  const follower = follow(t, id);
  await follower.look(never);
  assert.equal(callState(follower.entries, id).kind, "answered");
  // The model launches a command: its line and expansion, stamped with the
  // launching call (2.0.50 to 2.0.72 wrote them after its result).
  const launch = newId("toolu_");
  await t.append(
    t.toolUse(launch, "SlashCommand", { command: "/review" }),
    t.result(launch, "Launching command: /review", {
      success: true,
      commandName: "review",
    }),
    userLine(t, {
      message: {
        role: "user",
        content:
          "<command-message>review is running…</command-message>\n<command-name>/review</command-name>",
      },
      sourceToolUseID: launch,
    }),
    userLine(t, {
      isMeta: true,
      message: { role: "user", content: [{ type: "text", text: "Review." }] },
      sourceToolUseID: launch,
    }),
  );
  await follower.look(never);
  assert.equal(follower.newTurn, false, "a launch opens no turn");
  // A local command typed meanwhile (2.1.x: its own promptId), then a
  // result the running turn gets, stamped with that promptId.
  const local = crypto.randomUUID();
  const next = newId("toolu_");
  await t.append(
    userLine(t, {
      promptId: local,
      isMeta: true,
      message: {
        role: "user",
        content:
          "<local-command-caveat>Caveat: run locally.</local-command-caveat>",
      },
    }),
    userLine(t, {
      promptId: local,
      message: {
        role: "user",
        content:
          "<command-name>/model</command-name>\n<command-message>model</command-message>",
      },
    }),
    t.toolUse(next, "Read", { file_path: "/tmp/a" }),
  );
  t.promptId = local;
  await t.append(t.result(next, "contents"));
  await follower.look(never);
  assert.equal(follower.newTurn, false, "the local command opened nothing");
  assert.equal(callState(follower.entries, next).kind, "answered");
  // A background task's notice the model answers is a new turn.
  await t.append(
    userLine(t, {
      promptId: crypto.randomUUID(),
      origin: { kind: "task-notification" },
      message: {
        role: "user",
        content:
          "<task-notification>\n<task-id>b1</task-id>\n</task-notification>",
      },
    }),
    t.text("The background task finished."),
  );
  await follower.look(never);
  assert.equal(follower.newTurn, true);
});
