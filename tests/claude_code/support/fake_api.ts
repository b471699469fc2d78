/**
 * A fake Anthropic Messages API on 127.0.0.1 for the real Claude Code CLI.
 *
 * `POST /v1/messages` with `"stream": true` is answered as server-sent events
 * the way the real API streams (`message_start`, per block
 * `content_block_start` / `content_block_delta` / `content_block_stop`,
 * `message_delta` with the stop reason, `message_stop`); without it, as one
 * JSON message. `/v1/messages/count_tokens` gets a token count. Requests of
 * the main conversation (those offering tools: the session and its
 * subagents) are answered by the scenario's script; side requests (titles,
 * topics, offering no tools) get a short text. Every request is recorded.
 *
 * @module
 */

/** One content block of a scripted reply. */
export type ReplyBlock =
  | { type: "text"; text: string }
  | {
    type: "tool_use";
    name: string;
    input?: Record<string, unknown>;
    id?: string;
  }
  | { type: "thinking"; thinking: string };

/** What the fake API answers to one main-conversation request. */
export type Reply =
  | {
    kind: "message";
    blocks: ReplyBlock[];
    /** Default: `tool_use` when a block calls a tool, else `end_turn`. */
    stopReason?: string;
    /** Milliseconds to wait before answering (a slow model). */
    delayMs?: number;
  }
  | {
    kind: "http_error";
    status: number;
    errorType?: string;
    /** The error's `message` (default `fake API error`). */
    message?: string;
  };

/** A text reply. */
export function text(value: string): Reply {
  return { kind: "message", blocks: [{ type: "text", text: value }] };
}

/** A reply with no content blocks at all (the silent model). */
export function empty(): Reply {
  return { kind: "message", blocks: [] };
}

/** A reply calling one tool, with a line of text before the call. */
export function toolCall(
  name: string,
  input: Record<string, unknown> = {},
  lead = `Calling ${name}.`,
): Reply {
  return {
    kind: "message",
    blocks: [{ type: "text", text: lead }, { type: "tool_use", name, input }],
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
  /** Path and query, e.g. `/v1/messages?beta=true`. */
  path: string;
  headers: Record<string, string>;
  /** The parsed JSON body (null when none or not JSON). */
  body: Record<string, unknown> | null;
  /** True for a main-conversation `/v1/messages` request. */
  main: boolean;
  /** The reply given (main requests only). */
  reply?: Reply;
  /** The content blocks sent, ids filled in (main requests only). */
  sent?: Record<string, unknown>[];
}

/** Decides the reply to the `index`-th (0-based) main request. */
export type Script = (request: RecordedRequest, index: number) => Reply;

/** A running fake API. */
export interface FakeApi {
  /** `http://127.0.0.1:<port>`. */
  url: string;
  /** Every request so far, in order of arrival. */
  requests: RecordedRequest[];
  /** The main-conversation requests so far. */
  mainRequests(): RecordedRequest[];
  /** Main requests that found the scripted queue empty. */
  overruns: number;
  /** Stops the server. */
  close(): Promise<void>;
}

/** What the script answers once a reply queue is used up. */
const OVERRUN_TEXT = "fake API: no scripted reply left";

/**
 * A script from a queue of replies; requests past its end get a text reply
 * and count as overruns, which scenarios assert to be zero.
 */
export function queue(replies: Reply[]): Script {
  return (_request, index) => replies[index] ?? text(OVERRUN_TEXT);
}

let idCounter = 0;
function randomId(prefix: string): string {
  const bytes = crypto.getRandomValues(new Uint8Array(12));
  const hex = [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
  return `${prefix}${hex}${(idCounter++).toString(16)}`;
}

function isMainRequest(body: Record<string, unknown> | null): boolean {
  return Array.isArray(body?.tools) && body.tools.length > 0;
}

interface FullBlock {
  type: string;
  [key: string]: unknown;
}

/** Scripted blocks with ids and signatures filled in. */
function fullBlocks(blocks: ReplyBlock[]): FullBlock[] {
  return blocks.map((block) => {
    switch (block.type) {
      case "text":
        return { type: "text", text: block.text };
      case "thinking":
        return {
          type: "thinking",
          thinking: block.thinking,
          signature: randomId("sig"),
        };
      case "tool_use":
        return {
          type: "tool_use",
          id: block.id ?? randomId("toolu_"),
          name: block.name,
          input: block.input ?? {},
        };
    }
  });
}

function stopReasonOf(reply: Reply & { kind: "message" }): string {
  return reply.stopReason ??
    (reply.blocks.some((b) => b.type === "tool_use") ? "tool_use" : "end_turn");
}

function sse(event: string, data: unknown): string {
  return `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}

/** The SSE stream of one message, as the real API sends it. */
function streamEvents(
  model: string,
  blocks: FullBlock[],
  stopReason: string,
): string {
  const id = randomId("msg_");
  let out = sse("message_start", {
    type: "message_start",
    message: {
      id,
      type: "message",
      role: "assistant",
      model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: 100, output_tokens: 1 },
    },
  });
  blocks.forEach((block, index) => {
    const start = (content_block: unknown) =>
      sse("content_block_start", {
        type: "content_block_start",
        index,
        content_block,
      });
    const delta = (d: unknown) =>
      sse("content_block_delta", {
        type: "content_block_delta",
        index,
        delta: d,
      });
    if (block.type === "text") {
      out += start({ type: "text", text: "" });
      if (block.text !== "") {
        out += delta({ type: "text_delta", text: block.text });
      }
    } else if (block.type === "thinking") {
      out += start({ type: "thinking", thinking: "", signature: "" });
      if (block.thinking !== "") {
        out += delta({ type: "thinking_delta", thinking: block.thinking });
      }
      out += delta({ type: "signature_delta", signature: block.signature });
    } else {
      out += start({
        type: "tool_use",
        id: block.id,
        name: block.name,
        input: {},
      });
      out += delta({
        type: "input_json_delta",
        partial_json: JSON.stringify(block.input),
      });
    }
    out += sse("content_block_stop", { type: "content_block_stop", index });
  });
  out += sse("message_delta", {
    type: "message_delta",
    delta: { stop_reason: stopReason, stop_sequence: null },
    usage: { output_tokens: 10 },
  });
  out += sse("message_stop", { type: "message_stop" });
  return out;
}

function messageResponse(
  body: Record<string, unknown> | null,
  blocks: FullBlock[],
  stopReason: string,
): Response {
  const model = typeof body?.model === "string" ? body.model : "fake-model";
  if (body?.stream === true) {
    return new Response(streamEvents(model, blocks, stopReason), {
      headers: {
        "content-type": "text/event-stream",
        "cache-control": "no-cache",
        "request-id": randomId("req_"),
      },
    });
  }
  return Response.json({
    id: randomId("msg_"),
    type: "message",
    role: "assistant",
    model,
    content: blocks,
    stop_reason: stopReason,
    stop_sequence: null,
    usage: { input_tokens: 100, output_tokens: 10 },
  }, { headers: { "request-id": randomId("req_") } });
}

/**
 * Starts the fake API on 127.0.0.1 (a free port) with `script` answering the
 * main conversation. Requires `--allow-net`.
 */
export function startFakeApi(script: Script): FakeApi {
  const requests: RecordedRequest[] = [];
  let mainCount = 0;
  const api: FakeApi = {
    url: "",
    requests,
    mainRequests: () => requests.filter((r) => r.main),
    overruns: 0,
    close: async () => {
      await server.shutdown();
    },
  };
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    async (request) => {
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
      if (request.method !== "POST") {
        return Response.json({
          type: "error",
          error: { type: "not_found_error" },
        }, {
          status: 404,
        });
      }
      if (url.pathname === "/v1/messages/count_tokens") {
        return Response.json({ input_tokens: 100 });
      }
      if (url.pathname !== "/v1/messages") {
        return Response.json({
          type: "error",
          error: { type: "not_found_error" },
        }, {
          status: 404,
        });
      }
      if (!isMainRequest(body)) {
        return messageResponse(
          body,
          [{ type: "text", text: "Test session" }],
          "end_turn",
        );
      }
      recorded.main = true;
      const index = mainCount++;
      const reply = script(recorded, index);
      if (reply.kind === "message" && reply.blocks.length === 1) {
        const only = reply.blocks[0];
        if (only?.type === "text" && only.text === OVERRUN_TEXT) api.overruns++;
      }
      recorded.reply = reply;
      if (reply.kind === "http_error") {
        return Response.json({
          type: "error",
          error: {
            type: reply.errorType ?? "api_error",
            message: reply.message ?? "fake API error",
          },
        }, { status: reply.status });
      }
      if (reply.delayMs) await new Promise((r) => setTimeout(r, reply.delayMs));
      const blocks = fullBlocks(reply.blocks);
      recorded.sent = blocks;
      return messageResponse(body, blocks, stopReasonOf(reply));
    },
  );
  api.url = `http://127.0.0.1:${server.addr.port}`;
  return api;
}

/** The id of the first tool call the fake API sent in reply to `request`. */
export function sentToolUseId(request: RecordedRequest | undefined): string {
  const call = request?.sent?.find((block) => block.type === "tool_use");
  if (typeof call?.id !== "string") throw new Error("no tool_use was sent");
  return call.id;
}

/** The text of every block of a message's content (string or blocks). */
export function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content.map((block) => {
    if (!block || typeof block !== "object") return "";
    const b = block as Record<string, unknown>;
    if (typeof b.text === "string") return b.text;
    if (b.type === "tool_result") return contentText(b.content);
    return "";
  }).join("\n");
}

/**
 * The text of the last user message of a recorded request (the tool results,
 * reminders and hook feedback the model gets this time). Claude Code also
 * sends `system`-role messages, sometimes last: they are skipped.
 */
export function lastUserText(request: RecordedRequest): string {
  const messages = request.body?.messages;
  if (!Array.isArray(messages)) return "";
  const last = messages.findLast((m) => m?.role === "user") as
    | { content?: unknown }
    | undefined;
  return contentText(last?.content);
}

/** The first message's text: the prompt that started the conversation. */
export function firstMessageText(request: RecordedRequest): string {
  const messages = request.body?.messages;
  if (!Array.isArray(messages) || messages.length === 0) return "";
  return contentText((messages[0] as { content?: unknown }).content);
}
