/**
 * API-error endings no nudge can fix: the real "Prompt is too long" capture
 * (2.1.332, and 2.0.76 whose Stop fires on it), and the same turn with its
 * synthetic entry rewritten to each kind of failure Claude Code's own
 * error-to-message code writes (its `error` kind, `apiErrorStatus`, its
 * texts, and the text-only entries of releases before `error`): the lasting
 * ones end the turn as an API-error ending, the passing ones leave the
 * unanswered result a stall (the watchdog's and the hook's nudge can work).
 */

import assert from "node:assert/strict";
import { classifyTurn } from "../../src/detection/classify.ts";
import { toEntry } from "../../src/transcript/line_entries.ts";
import type { Entry } from "../../src/transcript/entry.ts";
import { isEntry, type Line, realLines } from "../support/real_lines.ts";

/** The conversation entries of `lines` after the prompt, as the hook reads them. */
function turnOf(lines: readonly Line[]): Entry[] {
  const entries: Entry[] = [];
  lines.forEach((line, i) => {
    if (typeof line === "string") return;
    const entry = toEntry(line, { offset: i * 100, line: i + 1 });
    if (entry !== null && entry.kind !== "prompt") entries.push(entry);
  });
  return entries;
}

/** The real capture with its synthetic entry's fields replaced. */
function withError(
  fields: Record<string, unknown>,
  text: string,
  name = "real_prompt_too_long_after_tool_result.jsonl",
): Entry[] {
  const lines = realLines(name).map((line) => {
    if (!isEntry(line, "assistant") || line.isApiErrorMessage !== true) {
      return line;
    }
    const {
      error: _error,
      apiErrorStatus: _status,
      errorDetails: _details,
      ...rest
    } = line;
    const message = line.message as Record<string, unknown>;
    return {
      ...rest,
      ...fields,
      message: { ...message, content: [{ type: "text", text }] },
    };
  });
  return turnOf(lines);
}

const judge = (turn: Entry[]) => {
  const verdict = classifyTurn(turn, { backgroundTasks: [] });
  return {
    kinds: verdict.signatures.map((s) => s.kind),
    apiError: verdict.endedOnApiError === true,
    unfixable: verdict.endedOnUnfixableError === true,
    reason: verdict.reason,
  };
};

Deno.test("a real 'Prompt is too long' after a tool result (2.1.332, 2.0.76) is an API-error ending no nudge can fix, not a stall", () => {
  for (
    const name of [
      "real_prompt_too_long_after_tool_result.jsonl",
      "real_prompt_too_long_after_tool_result_2.0.76.jsonl",
    ]
  ) {
    assert.deepEqual(judge(turnOf(realLines(name))), {
      kinds: [],
      apiError: true,
      unfixable: true,
      reason:
        "the turn ended on an API error no nudge can fix (the prompt is too long)",
    }, name);
  }
});

/** Failures the request itself causes, as Claude Code writes them. */
const LASTING: readonly [string, Record<string, unknown>, string][] = [
  [
    "compaction is thrashing",
    { error: "invalid_request" },
    "Autocompact is thrashing: the context refilled to the limit within 3 turns of the previous compact, 3 times in a row. A file being read or a tool output is likely too large for the context window. Try reading in smaller chunks, or use /clear to start fresh.",
  ],
  [
    "the prompt is too long",
    { error: "invalid_request", apiErrorStatus: 400 },
    "Prompt is too long · the request is ~268473 tokens (limit 200000) but this conversation is only ~206667 tokens",
  ],
  [
    "the request is too large",
    { error: "invalid_request", apiErrorStatus: 413 },
    "Request too large (max 32 MB). Double press esc to go back and try with a smaller file.",
  ],
  [
    "a PDF cannot be read",
    { error: "invalid_request" },
    "PDF too large (max 100 pages, 32 MB). Double press esc to go back and try again, or use pdftotext to convert to text first.",
  ],
  [
    "the request is invalid",
    { error: "invalid_request" },
    "API Error: 400 due to tool use concurrency issues. Run /rewind to recover the conversation.",
  ],
  [
    "authentication",
    { error: "authentication_failed" },
    'Please run /login · API Error: 401 {"type":"error","error":{"type":"authentication_error","message":"Invalid authentication credentials"}}',
  ],
  ["billing", { error: "billing_error" }, "Credit balance is too low"],
  [
    "the model is not available",
    { error: "model_not_found", apiErrorStatus: 404 },
    "There's an issue with the selected model (mimo-v2.5-pro). It may not exist or you may not have access to it. Run /model to pick a different model.",
  ],
  [
    "a usage limit",
    { error: "rate_limit" },
    "You've hit your limit · resets 11pm (Europe/Berlin)",
  ],
  // A usage limit Claude Code found no words for (its 429 fallback).
  ["a usage limit", { error: "rate_limit" }, "No response requested."],
  [
    "billing",
    { error: "rate_limit" },
    "API Error: Extra usage is required for 1M context · run /extra-usage to enable, or /model to switch to standard context",
  ],
  // Releases before the `error` kind: the status in the text, or the text.
  [
    "HTTP 400",
    {},
    'API Error: 400 {"type":"error","error":{"type":"invalid_request_error","message":"thinking.enabled.budget_tokens: Input should be greater than or equal to 1024"}}',
  ],
  [
    "the request was refused",
    {},
    "API Error: Claude Code is unable to respond to this request, which appears to violate our Usage Policy (https://www.anthropic.com/legal/aup). Please double press esc to edit your last message or start a new session for Claude Code to assist with a different task.",
  ],
  ["the prompt is too long", {}, "Prompt is too long"],
];

/** Failures that pass: sent again, the request may well go through. */
const PASSING: readonly [Record<string, unknown>, string][] = [
  [
    { error: "server_error", apiErrorStatus: 500 },
    'API Error: 500 {"type":"error","error":{"type":"api_error","message":"Internal server error"}}',
  ],
  [{ error: "unknown" }, "API Error: Request timed out."],
  [{}, "API Error: Request timed out."],
  [{ error: "unknown" }, "API Error: Connection error."],
  [{}, 'API Error: 529 {"type":"error","error":{"type":"overloaded_error"}}'],
  [
    { error: "rate_limit", apiErrorStatus: 429 },
    "API Error: Request rejected (429) · this may be a temporary capacity issue — check status.anthropic.com",
  ],
  [
    { error: "rate_limit" },
    "Opus is experiencing high load, please use /model to switch to Sonnet",
  ],
  [
    { error: "authentication_failed" },
    "Authentication error · This may be a temporary network issue, please try again",
  ],
  [
    { error: "max_output_tokens" },
    "API Error: Claude's response exceeded the 32000 output token maximum. Try again.",
  ],
];

Deno.test("an API error the request itself causes ends the turn as an API-error ending, allowed, whatever the release wrote", () => {
  for (const [words, fields, text] of LASTING) {
    const got = judge(withError(fields, text));
    assert.deepEqual(got.kinds, [], text);
    assert.equal(got.unfixable, true, text);
    assert.equal(got.apiError, true, text);
    assert.ok(
      got.reason.includes(`(${words})`) ||
        (words === "a usage limit" && got.reason.includes("usage limit")),
      `${text}: ${got.reason}`,
    );
  }
  // A usage limit keeps its own reason and flag.
  const limit = classifyTurn(
    withError({ error: "rate_limit" }, "You've hit your limit · resets 5am"),
    { backgroundTasks: [] },
  );
  assert.equal(limit.endedOnUsageLimit, true);
  assert.equal(
    limit.reason,
    "the turn ended on a usage limit: no nudge works until it resets",
  );
});

Deno.test("an API error that may pass leaves the unanswered result a stall (a nudge sends the request again)", () => {
  for (const [fields, text] of PASSING) {
    const got = judge(withError(fields, text));
    assert.deepEqual(got.kinds, ["missing_followup"], text);
    assert.equal(got.apiError, true, text);
    assert.equal(got.unfixable, false, text);
  }
});

Deno.test("an API error the model answered after is no ending at all", () => {
  const turn = withError({ error: "invalid_request" }, "Prompt is too long");
  const last = turn.at(-1) as Entry;
  const answered: Entry[] = [...turn, {
    kind: "assistant",
    offset: last.offset + 100,
    line: last.line + 1,
    promptId: null,
    sidechain: false,
    messageId: "msg_after",
    texts: ["The tool said forty-two."],
    toolUses: [],
  }];
  assert.deepEqual(judge(answered), {
    kinds: [],
    apiError: false,
    unfixable: false,
    reason: "the model answered",
  });
});
