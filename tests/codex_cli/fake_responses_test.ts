/**
 * The fake Responses API on its own (no Codex needed): the event sequence
 * of a streamed response (a message, an `exec_command` call, a freeform
 * call, an MCP call, nothing at all), side requests without tools, HTTP
 * errors, unknown paths, and the recording scenarios assert on.
 */

import assert from "node:assert/strict";
import {
  callOutput,
  customCall,
  empty,
  execCall,
  httpError,
  lastUserText,
  mcpCall,
  queue,
  sentCallId,
  startFakeResponsesApi,
  text,
} from "./support/fake_responses.ts";

const TOOLS = [{ type: "function", name: "exec_command" }];

function post(url: string, body: unknown): Promise<Response> {
  return fetch(`${url}/v1/responses`, {
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

Deno.test("fake Responses API streams a message, then an exec_command call, as the Responses API does", async () => {
  const api = startFakeResponsesApi(queue([execCall("ls -a", "Looking.")]));
  try {
    const response = await post(api.url, {
      model: "gpt-fake",
      stream: true,
      tools: TOOLS,
      input: [{ type: "message", role: "user", content: "hi" }],
    });
    assert.equal(response.headers.get("content-type"), "text/event-stream");
    const events = sseEvents(await response.text());
    assert.deepEqual(events.map((e) => e.type), [
      "response.created",
      "response.output_item.added",
      "response.output_text.delta",
      "response.output_item.done",
      "response.output_item.added",
      "response.output_item.done",
      "response.completed",
    ]);
    const message = events[3]!.item as Record<string, unknown>;
    assert.deepEqual(message.content, [
      { type: "output_text", text: "Looking.", annotations: [] },
    ]);
    const call = events[5]!.item as Record<string, unknown>;
    assert.equal(call.type, "function_call");
    assert.equal(call.name, "exec_command");
    assert.equal(call.arguments, '{"cmd":"ls -a"}');
    assert.equal(call.call_id, sentCallId(api.requests[0]));
    const added = events[4]!.item as Record<string, unknown>;
    assert.equal(added.arguments, "", "announced empty, as the API does");
    const completed = events[6]!.response as Record<string, unknown>;
    assert.equal(completed.status, "completed");
    assert.equal(
      (completed.usage as { total_tokens: number }).total_tokens,
      110,
    );
    assert.equal(api.overruns, 0);
  } finally {
    await api.close();
  }
});

Deno.test("fake Responses API: an empty reply is created then completed, nothing between; custom and MCP calls", async () => {
  const api = startFakeResponsesApi(queue([
    empty(),
    customCall("apply_patch", "*** Begin Patch\n*** End Patch\n"),
    mcpCall("stub", "echo", { text: "x" }),
  ]));
  try {
    const body = { stream: true, tools: TOOLS, input: [] };
    const events = sseEvents(await (await post(api.url, body)).text());
    assert.deepEqual(events.map((e) => e.type), [
      "response.created",
      "response.completed",
    ]);
    const custom = sseEvents(await (await post(api.url, body)).text());
    const done = custom.find((e) => e.type === "response.output_item.done")
      ?.item as Record<string, unknown>;
    assert.equal(done.type, "custom_tool_call");
    assert.equal(done.input, "*** Begin Patch\n*** End Patch\n");
    const mcp = sseEvents(await (await post(api.url, body)).text());
    const call = mcp.find((e) => e.type === "response.output_item.done")
      ?.item as Record<string, unknown>;
    assert.deepEqual([call.namespace, call.name], ["mcp__stub", "echo"]);
  } finally {
    await api.close();
  }
});

Deno.test("fake Responses API: side requests (no tools) never reach the script; errors, unknown paths and overruns", async () => {
  const api = startFakeResponsesApi(queue([httpError(503), text("one")]));
  try {
    const side = sseEvents(
      await (await post(api.url, { stream: true, input: [] })).text(),
    );
    const title = side.find((e) => e.type === "response.output_item.done")
      ?.item as { content: { text: string }[] };
    assert.equal(title.content[0]?.text, "Test session");
    const failed = await post(api.url, { tools: TOOLS });
    assert.equal(failed.status, 503);
    await failed.body?.cancel();
    await (await post(api.url, { tools: TOOLS })).text();
    await (await post(api.url, { tools: TOOLS })).text();
    assert.equal(api.overruns, 1);
    const missing = await fetch(`${api.url}/v1/models`);
    assert.equal(missing.status, 404);
    await missing.body?.cancel();
    assert.deepEqual(api.requests.map((r) => [r.path, r.main]), [
      ["/v1/responses", false],
      ["/v1/responses", true],
      ["/v1/responses", true],
      ["/v1/responses", true],
      ["/v1/models", false],
    ]);
  } finally {
    await api.close();
  }
});

Deno.test("fake Responses API records what the model received: the last user text, a call's output by call_id", async () => {
  const api = startFakeResponsesApi(queue([text("ok")]));
  try {
    await (await post(api.url, {
      tools: TOOLS,
      input: [
        {
          type: "message",
          role: "user",
          content: [{ type: "input_text", text: "run it" }],
        },
        { type: "function_call", call_id: "call_1", name: "exec_command" },
        {
          type: "function_call_output",
          call_id: "call_1",
          output: "Output:\nhi\n",
        },
        {
          type: "message",
          role: "user",
          content: [{
            type: "input_text",
            text: "<hook_prompt>nudge</hook_prompt>",
          }],
        },
      ],
    })).text();
    const [request] = api.mainRequests();
    assert.equal(callOutput(request, "call_1"), "Output:\nhi\n");
    assert.equal(callOutput(request, "call_2"), null);
    assert.equal(lastUserText(request), "<hook_prompt>nudge</hook_prompt>");
  } finally {
    await api.close();
  }
});
