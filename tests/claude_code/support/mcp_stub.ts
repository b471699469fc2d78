/**
 * A stub MCP server speaking newline-delimited JSON-RPC over stdio, started
 * by Claude Code from the tier's `--mcp-config`. Run it with
 * `deno run --quiet --no-prompt mcp_stub.ts` (it needs no permissions).
 *
 * Tools: `empty` (content `[]`), `blank` (one empty text block), `echo`
 * (returns `text`), `fail` (an error result: `text`, or `size` times `char`),
 * `slow` (waits `seconds`, then says so).
 *
 * With a path as its argument (and `--allow-write` to it), it creates that
 * file once it has listed its tools: an interactive Claude Code connects to
 * MCP servers in the background, so a scenario waits for it before it
 * types a prompt that needs a tool.
 *
 * @module
 */

interface RpcMessage {
  jsonrpc?: string;
  id?: number | string | null;
  method?: string;
  params?: Record<string, unknown>;
}

const TOOLS = [
  { name: "empty", description: "Returns no content at all." },
  { name: "blank", description: "Returns one empty text block." },
  {
    name: "echo",
    description: "Returns its text.",
    props: { text: { type: "string" } },
  },
  {
    name: "fail",
    description: "Fails with `text`, or `size` times `char` (default E).",
    props: {
      text: { type: "string" },
      size: { type: "number" },
      char: { type: "string" },
    },
  },
  {
    name: "slow",
    description: "Waits `seconds`, then answers.",
    props: { seconds: { type: "number" } },
  },
].map(({ name, description, props }) => ({
  name,
  description,
  inputSchema: { type: "object", properties: props ?? {} },
}));

type ToolResult = {
  content: { type: "text"; text: string }[];
  isError?: boolean;
};

async function callTool(
  name: unknown,
  args: Record<string, unknown>,
): Promise<ToolResult> {
  switch (name) {
    case "empty":
      return { content: [] };
    case "blank":
      return { content: [{ type: "text", text: "" }] };
    case "echo":
      return { content: [{ type: "text", text: String(args.text ?? "") }] };
    case "fail": {
      const size = typeof args.size === "number" ? args.size : 0;
      const char = typeof args.char === "string" ? args.char : "E";
      const message = size > 0
        ? `stub failure: ${char.repeat(size)}`
        : String(args.text ?? "stub failure");
      return { content: [{ type: "text", text: message }], isError: true };
    }
    case "slow": {
      const seconds = typeof args.seconds === "number" ? args.seconds : 1;
      await new Promise((r) => setTimeout(r, seconds * 1000));
      return { content: [{ type: "text", text: `slept ${seconds} s` }] };
    }
    default:
      return {
        content: [{ type: "text", text: `unknown tool ${String(name)}` }],
        isError: true,
      };
  }
}

/** Created once the tools were listed (the first argument, if any). */
const READY_FILE = Deno.args[0];

const encoder = new TextEncoder();
async function send(message: unknown): Promise<void> {
  const bytes = encoder.encode(JSON.stringify(message) + "\n");
  let written = 0;
  while (written < bytes.length) {
    written += await Deno.stdout.write(bytes.subarray(written));
  }
}

async function handle(message: RpcMessage): Promise<void> {
  const { id, method, params = {} } = message;
  if (id === undefined || id === null) return; // a notification
  const reply = (result: unknown) => send({ jsonrpc: "2.0", id, result });
  switch (method) {
    case "initialize":
      return await reply({
        protocolVersion: typeof params.protocolVersion === "string"
          ? params.protocolVersion
          : "2025-06-18",
        capabilities: { tools: {} },
        serverInfo: { name: "stub", version: "1.0.0" },
      });
    case "ping":
      return await reply({});
    case "tools/list":
      await reply({ tools: TOOLS });
      if (READY_FILE) await Deno.writeTextFile(READY_FILE, "");
      return;
    case "tools/call":
      return await reply(
        await callTool(
          params.name,
          (params.arguments ?? {}) as Record<string, unknown>,
        ),
      );
    default:
      return await send({
        jsonrpc: "2.0",
        id,
        error: { code: -32601, message: `method not found: ${method}` },
      });
  }
}

let buffer = "";
const decoder = new TextDecoder();
for await (const chunk of Deno.stdin.readable) {
  buffer += decoder.decode(chunk, { stream: true });
  let newline;
  while ((newline = buffer.indexOf("\n")) >= 0) {
    const line = buffer.slice(0, newline).trim();
    buffer = buffer.slice(newline + 1);
    if (line === "") continue;
    try {
      // Calls run concurrently, as a real server's do (a slow call must not
      // hold up a ping).
      void handle(JSON.parse(line));
    } catch { /* not JSON: ignore */ }
  }
}
