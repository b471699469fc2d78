/**
 * Real Claude Code, results the hook must read right: an MCP error whose
 * transcript line is far over 64 KiB (the `tool_use_id` comes after the
 * content in error blocks), and an API failure after a tool result, which
 * ends the session with a synthetic `API Error` entry (and, since 2.1.78,
 * no Stop at all): a passing one (HTTP 500) is nudged, one no nudge can fix
 * (a prompt too long) is allowed.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { HOOK_PERMISSION_FLAGS } from "../../src/shared/permissions.ts";
import {
  httpError,
  lastUserText,
  queue,
  type Reply,
  sentToolUseId,
  text,
  toolCall,
} from "./support/fake_api.ts";
import { factsOf, has } from "./support/release_facts.ts";
import {
  assertAnswered,
  assertCarriesFeedback,
  assertNoFeedback,
  blockLabel,
  claudeTest,
  type Client,
  codesOf,
  type Outcome,
  runScenario,
  runsOf,
} from "./support/scenario.ts";
import { MAIN_TS } from "./support/session.ts";
import { EVENT_WAIT_MS } from "./support/patience.ts";

const KIB = 1024;

claudeTest(
  "a long answered error line (MCP fail, line over 64 KiB): the answered turn is not blocked",
  async (client) => {
    const answer = "The tool failed; here is what it said.";
    const outcome = await runScenario(client, {
      prompt: "use mcp__stub__fail",
      // Claude Code cuts error text near 10 KB, but each control character
      // (ANSI colour codes in real tool output) is 6 bytes in the JSON line,
      // and the line holds the text twice (content and toolUseResult).
      script: queue([
        toolCall("mcp__stub__fail", { size: 70 * KIB, char: "\u001b" }),
        text(answer),
      ]),
      allowedTools: ["mcp__stub__fail"],
    });
    // The premise: a result line over 64 KiB whose id sits outside its
    // first and last 16 KiB.
    const id = sentToolUseId(outcome.requests[0]);
    const lines = outcome.transcripts[0]!.text.split("\n");
    const line = lines.find((l) =>
      l.includes('"is_error":true') && l.includes(`"tool_use_id":"${id}"`)
    );
    assert.ok(line, "no error result line");
    const bytes = new TextEncoder().encode(line);
    assert.ok(bytes.length > 64 * KIB, `line is ${bytes.length} bytes`);
    const at = line.indexOf(`"tool_use_id":"${id}"`);
    assert.ok(at > 16 * KIB && at < bytes.length - 16 * KIB, `id at ${at}`);
    assert.match(lastUserText(outcome.requests[1]!), /stub failure: /);
    assert.deepEqual(codesOf(outcome.hookRuns, "Stop"), [0]);
    assertNoFeedback(outcome);
    assertAnswered(outcome, answer);
  },
);

claudeTest(
  "HTTP 500 on the request after a tool result: the session ends on a synthetic API error that is no answer (Stop skipped since 2.1.78; before, the hook blocks it once)",
  async (client) => {
    // Every request after the call fails, the nudge's too, however often
    // Claude Code retries (CLAUDE_CODE_MAX_RETRIES=1).
    const outcome = await echoThenFailing(client, httpError(500));
    const callId = sentToolUseId(outcome.requests[0]);
    // Every failed request carried the tool result, unanswered.
    assert.ok(outcome.requests.length >= 3, `${outcome.requests.length}`);
    for (const request of outcome.requests.slice(1)) {
      assert.match(lastUserText(request), /forty-two|Stop hook feedback/);
    }
    const stops = runsOf(outcome.hookRuns, "Stop");
    if (has(client.release, "stop_skipped_on_api_error")) {
      // No Stop (nor SubagentStop): the hook never ran.
      assert.deepEqual(outcome.hookRuns, []);
      assert.equal(outcome.requests.length, 3); // the request and one retry
    } else {
      // Stop fires on the failed turn: the hook blocks it once (the result
      // is unanswered), the nudge's request fails too, and the next Stop,
      // with stop_hook_active, is let through.
      assert.deepEqual(stops.map((r) => r.code), [2, 0]);
      assert.equal(blockLabel(stops[0]!.stderr), "missing follow-up");
      assert.ok(stops[0]!.stderr.includes(`(id=${callId})`));
      // After Claude Code's own retries (2.0.76 makes more than
      // CLAUDE_CODE_MAX_RETRIES says), the nudge's request.
      assertCarriesFeedback(
        outcome,
        outcome.requests.find((r) =>
          lastUserText(r).includes("Stop hook feedback")
        ),
        stops[0]!,
      );
      assert.equal(stops[1]!.payload.stop_hook_active, true);
    }
    // claude exits 1; its result is an error with the API's message.
    assert.equal(outcome.run.code, 1);
    assert.equal(outcome.run.result?.is_error, true);
    if (factsOf(client.release).apiErrorStatus) {
      assert.equal(outcome.run.result?.api_error_status, 500);
    }
    assert.match(String(outcome.run.result?.result), /^API Error: 500 /);
    // The transcript ends on Claude Code's own synthetic entry.
    const entries = outcome.transcripts[0]!.text.trim().split("\n").map((l) =>
      JSON.parse(l)
    );
    const last = entries.findLast((e) => e.type === "assistant");
    assert.equal(last.isApiErrorMessage, true);
    assert.equal(last.message.model, "<synthetic>");
    assert.match(last.message.content[0].text, /^API Error: 500 /);
    // `stall-watch scan` on that real file: the call is still unanswered.
    const scanned = await scanJson(outcome.transcripts[0]!.text);
    assert.equal(scanned.verdict, "block");
    assert.equal(scanned.ended_on_api_error, true);
    assert.deepEqual(
      scanned.signatures.map((s) => [s.kind, s.tool_use_id]),
      [["missing_followup", callId]],
    );
  },
);

/** A session whose echo call is answered and every request after fails. */
function echoThenFailing(client: Client, failure: Reply): Promise<Outcome> {
  return runScenario(client, {
    prompt: "use mcp__stub__echo",
    script: (_request, index) =>
      index === 0
        ? toolCall("mcp__stub__echo", { text: "forty-two" })
        : failure,
    allowedTools: ["mcp__stub__echo"],
  });
}

/** The API's refusal of a request over the context window. */
const PROMPT_TOO_LONG: Reply = {
  kind: "http_error",
  status: 400,
  errorType: "invalid_request_error",
  message: "prompt is too long: 204452 tokens > 200000 maximum",
};

claudeTest(
  "a prompt too long after a tool result: an API-error ending no nudge can fix, allowed where Stop fires (before 2.1.78), not a stall",
  async (client) => {
    const outcome = await echoThenFailing(client, PROMPT_TOO_LONG);
    const callId = sentToolUseId(outcome.requests[0]);
    if (has(client.release, "stop_skipped_on_api_error")) {
      assert.deepEqual(outcome.hookRuns, []);
    } else {
      // Stop fires on the failed turn, and the hook lets it end: a nudge
      // would send the same conversation, too long again.
      assert.deepEqual(codesOf(outcome.hookRuns, "Stop"), [0]);
    }
    assertNoFeedback(outcome);
    // The transcript ends on Claude Code's own entry for the refusal.
    const text = outcome.transcripts[0]!.text;
    const last = text.trim().split("\n").map((l) => JSON.parse(l))
      .findLast((e) => e.type === "assistant");
    assert.equal(last.isApiErrorMessage, true);
    assert.match(last.message.content[0].text, /^Prompt is too long/);
    assert.ok(text.includes(callId));
    // `stall-watch scan` on that real file: an API-error ending, allowed.
    const scanned = await scanJson(text);
    assert.equal(scanned.verdict, "allow", String(scanned.reason));
    assert.equal(scanned.ended_on_api_error, true);
    assert.equal(scanned.ended_on_unfixable_error, true);
    assert.deepEqual(scanned.signatures, []);
  },
);

/** `stall-watch scan --json` of a transcript text. */
async function scanJson(
  transcript: string,
): Promise<
  Record<string, unknown> & { signatures: Record<string, unknown>[] }
> {
  const dir = await Deno.makeTempDir({ prefix: "stall-watch-scan-" });
  try {
    const path = join(dir, "session.jsonl");
    await Deno.writeTextFile(path, transcript);
    const out = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "--quiet",
        ...HOOK_PERMISSION_FLAGS,
        MAIN_TS,
        "scan",
        "--json",
        path,
      ],
      cwd: dir,
      stdout: "piped",
      stderr: "piped",
      signal: AbortSignal.timeout(EVENT_WAIT_MS),
    }).output();
    assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
    return JSON.parse(new TextDecoder().decode(out.stdout));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}
