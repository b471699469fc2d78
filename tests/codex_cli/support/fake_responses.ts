/**
 * A fake OpenAI Responses API on 127.0.0.1 for the real Codex CLI.
 *
 * `POST /v1/responses` (Codex always streams) is answered as server-sent
 * events the way the real API streams them: `response.created`, for each
 * output item `response.output_item.added`, its text as
 * `response.output_text.delta` (messages) and `response.output_item.done`
 * with the whole item, then `response.completed` with the usage. Requests
 * of the conversation (those offering tools) are answered by the
 * scenario's script; side requests (a title, a summary: no tools) get a
 * short text. Every request is recorded, so a scenario can assert what the
 * model received.
 *
 * @module
 */

/** One output item of a scripted reply. */
export type ReplyItem =
  | { type: "message"; text: string }
  | {
    type: "function_call";
    name: string;
    /** The tool namespace (MCP servers' tools: `mcp__<server>`). */
    namespace?: string;
    /** The call's arguments, sent as the JSON string Codex parses. */
    arguments: Record<string, unknown> | string;
    callId?: string;
  }
  | {
    type: "custom_tool_call";
    name: string;
    /** The freeform input (an `apply_patch` patch, say). */
    input: string;
    callId?: string;
  };

/** What the fake API answers to one conversation request. */
export type Reply =
  | {
    kind: "response";
    items: ReplyItem[];
    /** Milliseconds to wait before answering (a slow model). */
    delayMs?: number;
  }
  | { kind: "http_error"; status: number };

/** A reply of one message. */
export function text(value: string): Reply {
  return { kind: "response", items: [{ type: "message", text: value }] };
}

/** A reply with no output item at all (the silent model). */
export function empty(): Reply {
  return { kind: "response", items: [] };
}

/**
 * A reply calling Codex's shell tool, `exec_command`, with `{"cmd": cmd}`
 * (plus `extra` arguments), after a line of text unless `lead` is `""`.
 */
export function execCall(
  cmd: string,
  lead = "Running it.",
  extra: Record<string, unknown> = {},
): Reply {
  const items: ReplyItem[] = lead === ""
    ? []
    : [{ type: "message", text: lead }];
  items.push({
    type: "function_call",
    name: "exec_command",
    arguments: { cmd, ...extra },
  });
  return { kind: "response", items };
}

/**
 * A reply calling `tool` of the MCP server `server` (Codex offers each
 * server's tools in a namespace `mcp__<server>`).
 */
export function mcpCall(
  server: string,
  tool: string,
  args: Record<string, unknown> = {},
): Reply {
  return {
    kind: "response",
    items: [{
      type: "function_call",
      namespace: `mcp__${server}`,
      name: tool,
      arguments: args,
    }],
  };
}

/** A reply calling a freeform (custom) tool such as `apply_patch`. */
export function customCall(name: string, input: string): Reply {
  return {
    kind: "response",
    items: [{ type: "custom_tool_call", name, input }],
  };
}

/** An HTTP error (500 by default). */
export function httpError(status = 500): Reply {
  return { kind: "http_error", status };
}

/** One request the fake API received. */
export interface RecordedRequest {
  /** 1-based order of arrival over all requests. */
  seq: number;
  method: string;
  /** Path and query, e.g. `/v1/responses`. */
  path: string;
  headers: Record<string, string>;
  /** The parsed JSON body (null when none or not JSON). */
  body: Record<string, unknown> | null;
  /** True for a conversation request (`/v1/responses` offering tools). */
  main: boolean;
  /** The reply given (conversation requests only). */
  reply?: Reply;
  /** The output items sent, ids filled in (conversation requests only). */
  sent?: Record<string, unknown>[];
}

/** Decides the reply to the `index`-th (0-based) conversation request. */
export type Script = (request: RecordedRequest, index: number) => Reply;

/** A running fake API. */
export interface FakeResponsesApi {
  /** `http://127.0.0.1:<port>`. */
  url: string;
  /** The base URL a provider is configured with: `<url>/v1`. */
  baseUrl: string;
  /** Every request so far, in order of arrival. */
  requests: RecordedRequest[];
  /** The conversation requests so far. */
  mainRequests(): RecordedRequest[];
  /** Conversation requests that found the scripted queue empty. */
  overruns: number;
  /** Stops the server. */
  close(): Promise<void>;
}

/** What the script answers once a reply queue is used up. */
export const OVERRUN_TEXT = "fake API: no scripted reply left";

/**
 * A script from a queue of replies; requests past its end get a text reply
 * and count as overruns, which scenarios assert to be zero.
 */
export function queue(replies: Reply[]): Script {
  return (_request, index) => replies[index] ?? text(OVERRUN_TEXT);
}

let idCounter = 0;
function randomId(prefix: string): string {
  const bytes = crypto.getRandomValues(new Uint8Array(10));
  const hex = [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
  return `${prefix}${hex}${(idCounter++).toString(16)}`;
}

/** Whether a request body offers tools: the conversation, not a side request. */
export function isMainRequest(body: Record<string, unknown> | null): boolean {
  return Array.isArray(body?.tools) && body.tools.length > 0;
}

/** A scripted item as the API sends it, ids filled in. */
function fullItem(item: ReplyItem): Record<string, unknown> {
  switch (item.type) {
    case "message":
      return {
        type: "message",
        id: randomId("msg_"),
        role: "assistant",
        status: "completed",
        content: [{ type: "output_text", text: item.text, annotations: [] }],
      };
    case "function_call":
      return {
        type: "function_call",
        id: randomId("fc_"),
        status: "completed",
        call_id: item.callId ?? randomId("call_"),
        name: item.name,
        ...(item.namespace === undefined ? {} : { namespace: item.namespace }),
        arguments: typeof item.arguments === "string"
          ? item.arguments
          : JSON.stringify(item.arguments),
      };
    case "custom_tool_call":
      return {
        type: "custom_tool_call",
        id: randomId("ctc_"),
        status: "completed",
        call_id: item.callId ?? randomId("call_"),
        name: item.name,
        input: item.input,
      };
  }
}

/** An item as `response.output_item.added` announces it: still empty. */
function openedItem(item: Record<string, unknown>): Record<string, unknown> {
  switch (item.type) {
    case "message":
      return { ...item, status: "in_progress", content: [] };
    case "function_call":
      return { ...item, status: "in_progress", arguments: "" };
    default:
      return { ...item, status: "in_progress", input: "" };
  }
}

function sse(data: Record<string, unknown>): string {
  return `event: ${data.type}\ndata: ${JSON.stringify(data)}\n\n`;
}

/** The SSE stream of one response, as the real API sends it. */
export function responseEvents(
  model: string,
  items: Record<string, unknown>[],
): string {
  const id = randomId("resp_");
  const response = {
    id,
    object: "response",
    created_at: Math.floor(Date.now() / 1000),
    model,
    status: "in_progress",
    output: [] as unknown[],
  };
  let out = sse({ type: "response.created", response });
  items.forEach((item, index) => {
    out += sse({
      type: "response.output_item.added",
      output_index: index,
      item: openedItem(item),
    });
    if (item.type === "message") {
      const text = (item.content as { text: string }[])[0]?.text ?? "";
      if (text !== "") {
        out += sse({
          type: "response.output_text.delta",
          item_id: item.id,
          output_index: index,
          content_index: 0,
          delta: text,
        });
      }
    }
    out += sse({
      type: "response.output_item.done",
      output_index: index,
      item,
    });
  });
  out += sse({
    type: "response.completed",
    response: {
      ...response,
      status: "completed",
      output: items,
      usage: {
        input_tokens: 100,
        input_tokens_details: { cached_tokens: 0 },
        output_tokens: 10,
        output_tokens_details: { reasoning_tokens: 0 },
        total_tokens: 110,
      },
    },
  });
  return out;
}

function streamResponse(
  body: Record<string, unknown> | null,
  items: Record<string, unknown>[],
): Response {
  const model = typeof body?.model === "string" ? body.model : "gpt-fake";
  return new Response(responseEvents(model, items), {
    headers: {
      "content-type": "text/event-stream",
      "cache-control": "no-cache",
      "x-request-id": randomId("req_"),
    },
  });
}

function errorResponse(status: number, message: string): Response {
  return Response.json({
    error: { message, type: "server_error", code: null, param: null },
  }, { status });
}

/** Options of {@link startFakeResponsesApi}. */
export interface FakeApiOptions {
  /**
   * Also serve on this Unix socket: a client in another network namespace
   * reaches it through a relay there (see `netns_relay.ts`).
   */
  socketPath?: string;
}

/**
 * Starts the fake API on 127.0.0.1 (a free port) with `script` answering
 * the conversation. Requires `--allow-net=127.0.0.1` (and read and write
 * access to the socket's folder with `socketPath`).
 */
export function startFakeResponsesApi(
  script: Script,
  options: FakeApiOptions = {},
): FakeResponsesApi {
  const requests: RecordedRequest[] = [];
  let mainCount = 0;
  const api: FakeResponsesApi = {
    url: "",
    baseUrl: "",
    requests,
    mainRequests: () => requests.filter((r) => r.main),
    overruns: 0,
    close: async () => {
      await Promise.all(servers.map((server) => server.shutdown()));
    },
  };
  const handler = async (request: Request): Promise<Response> => {
    const url = new URL(request.url);
    const raw = await request.text();
    let body: Record<string, unknown> | null = null;
    try {
      const parsed = JSON.parse(raw);
      if (parsed && typeof parsed === "object") body = parsed;
    } catch { /* not JSON */ }
    const recorded: RecordedRequest = {
      seq: requests.length + 1,
      method: request.method,
      path: url.pathname + url.search,
      headers: Object.fromEntries(request.headers),
      body,
      main: false,
    };
    requests.push(recorded);
    if (request.method !== "POST" || url.pathname !== "/v1/responses") {
      return errorResponse(404, "fake API: no such endpoint");
    }
    if (!isMainRequest(body)) {
      return streamResponse(body, [fullItem({
        type: "message",
        text: "Test session",
      })]);
    }
    recorded.main = true;
    const index = mainCount++;
    const reply = script(recorded, index);
    const only = reply.kind === "response" && reply.items.length === 1
      ? reply.items[0]
      : undefined;
    if (only?.type === "message" && only.text === OVERRUN_TEXT) {
      api.overruns++;
    }
    recorded.reply = reply;
    if (reply.kind === "http_error") {
      return errorResponse(reply.status, "fake API error");
    }
    if (reply.delayMs) await new Promise((r) => setTimeout(r, reply.delayMs));
    const items = reply.items.map(fullItem);
    recorded.sent = items;
    return streamResponse(body, items);
  };
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    handler,
  );
  const servers: Deno.HttpServer[] = [server];
  if (options.socketPath !== undefined) {
    servers.push(
      Deno.serve({ path: options.socketPath, onListen: () => {} }, handler),
    );
  }
  api.url = `http://127.0.0.1:${server.addr.port}`;
  api.baseUrl = `${api.url}/v1`;
  return api;
}

/** The `input` items of a recorded request (what the model received). */
export function inputItems(
  request: RecordedRequest | undefined,
): Record<string, unknown>[] {
  const input = request?.body?.input;
  return Array.isArray(input)
    ? input.filter((i): i is Record<string, unknown> =>
      i !== null && typeof i === "object"
    )
    : [];
}

/** The text of a message item's content (string or parts). */
export function itemText(item: Record<string, unknown>): string {
  const content = item.content;
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content.map((part) =>
    part && typeof part === "object" && typeof part.text === "string"
      ? part.text
      : ""
  ).join("\n");
}

/** The texts of every `user` message a request carried, in order. */
export function userTexts(request: RecordedRequest | undefined): string[] {
  return inputItems(request)
    .filter((i) => i.type === "message" && i.role === "user")
    .map(itemText);
}

/** The text of the last user message a request carried. */
export function lastUserText(request: RecordedRequest | undefined): string {
  return userTexts(request).at(-1) ?? "";
}

/**
 * The output a request carried for the call `callId` (a
 * `function_call_output` or `custom_tool_call_output`), or null.
 */
export function callOutput(
  request: RecordedRequest | undefined,
  callId: string,
): string | null {
  const item = inputItems(request).find((i) =>
    (i.type === "function_call_output" ||
      i.type === "custom_tool_call_output") && i.call_id === callId
  );
  if (!item) return null;
  const output = item.output;
  if (typeof output === "string") return output;
  if (Array.isArray(output)) return itemText({ content: output });
  if (output && typeof output === "object") {
    const o = output as Record<string, unknown>;
    if (typeof o.content === "string") return o.content;
  }
  return JSON.stringify(output);
}

/** The `call_id` of the first call the fake API sent in reply to `request`. */
export function sentCallId(request: RecordedRequest | undefined): string {
  const call = request?.sent?.find((item) =>
    item.type === "function_call" || item.type === "custom_tool_call"
  );
  if (typeof call?.call_id !== "string") throw new Error("no call was sent");
  return call.call_id;
}
