/**
 * The fake Messages API on its own (no Claude Code needed): the event
 * sequence of a streamed reply, the non-streaming form, count_tokens, side
 * requests, HTTP errors and the recording scenarios assert on.
 */

import assert from "node:assert/strict";
import {
  empty,
  httpError,
  queue,
  sentToolUseId,
  startFakeApi,
  text,
} from "./support/fake_api.ts";

const TOOLS = [{ name: "Bash", input_schema: { type: "object" } }];

function post(url: string, path: string, body: unknown): Promise<Response> {
  return fetch(url + path, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
}

/** The `data:` objects of an SSE body, each with its `event:` name checked. */
function sseEvents(body: string): Record<string, unknown>[] {
  return body.trim().split("\n\n").map((frame) => {
    const [event, data] = frame.split("\n");
    const parsed = JSON.parse(data!.slice("data: ".length));
    assert.equal(event, `event: ${parsed.type}`);
    return parsed;
  });
}

Deno.test("fake API streams text, thinking and tool_use blocks as the Messages API does", async () => {
  const api = startFakeApi(queue([{
    kind: "message",
    blocks: [
      { type: "thinking", thinking: "hm" },
      { type: "text", text: "Calling." },
      { type: "tool_use", name: "Bash", input: { command: "true" } },
    ],
  }]));
  try {
    const response = await post(api.url, "/v1/messages?beta=true", {
      model: "m",
      stream: true,
      tools: TOOLS,
      messages: [{ role: "user", content: "hi" }],
    });
    assert.equal(response.headers.get("content-type"), "text/event-stream");
    const events = sseEvents(await response.text());
    assert.deepEqual(events.map((e) => e.type), [
      "message_start",
      "content_block_start",
      "content_block_delta",
      "content_block_delta",
      "content_block_stop",
      "content_block_start",
      "content_block_delta",
      "content_block_stop",
      "content_block_start",
      "content_block_delta",
      "content_block_stop",
      "message_delta",
      "message_stop",
    ]);
    const deltas = events.filter((e) => e.type === "content_block_delta")
      .map((e) => (e.delta as { type: string }).type);
    assert.deepEqual(deltas, [
      "thinking_delta",
      "signature_delta",
      "text_delta",
      "input_json_delta",
    ]);
    const stop = events.at(-2)!.delta as { stop_reason: string };
    assert.equal(stop.stop_reason, "tool_use");
    const toolStart = events[8]!.content_block as { id: string };
    assert.equal(toolStart.id, sentToolUseId(api.requests[0]));
    assert.equal(api.mainRequests().length, 1);
    assert.equal(api.overruns, 0);
  } finally {
    await api.close();
  }
});

Deno.test("fake API: an empty reply has no blocks, non-streaming gets JSON, the queue's end counts as an overrun", async () => {
  const api = startFakeApi(queue([empty(), text("plain")]));
  try {
    const streamed = sseEvents(
      await (await post(api.url, "/v1/messages", {
        stream: true,
        tools: TOOLS,
        messages: [],
      })).text(),
    );
    assert.deepEqual(streamed.map((e) => e.type), [
      "message_start",
      "message_delta",
      "message_stop",
    ]);
    const plain = await (await post(api.url, "/v1/messages", {
      tools: TOOLS,
      messages: [],
    })).json();
    assert.deepEqual(plain.content, [{ type: "text", text: "plain" }]);
    assert.equal(plain.stop_reason, "end_turn");
    await (await post(api.url, "/v1/messages", { tools: TOOLS })).text();
    assert.equal(api.overruns, 1);
  } finally {
    await api.close();
  }
});

Deno.test("fake API: side requests and count_tokens never reach the script, HTTP errors do", async () => {
  const api = startFakeApi(queue([httpError(529)]));
  try {
    const side = await (await post(api.url, "/v1/messages", {
      messages: [{ role: "user", content: "title this" }],
    })).json();
    assert.equal(side.content[0].text, "Test session");
    const count = await (await post(api.url, "/v1/messages/count_tokens", {
      messages: [],
    })).json();
    assert.equal(typeof count.input_tokens, "number");
    const failed = await post(api.url, "/v1/messages", { tools: TOOLS });
    assert.equal(failed.status, 529);
    assert.equal((await failed.json()).type, "error");
    assert.deepEqual(api.requests.map((r) => [r.path, r.main]), [
      ["/v1/messages", false],
      ["/v1/messages/count_tokens", false],
      ["/v1/messages", true],
    ]);
  } finally {
    await api.close();
  }
});
