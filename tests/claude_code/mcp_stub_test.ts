/**
 * The stub MCP server on its own (no Claude Code needed): the JSON-RPC
 * exchange Claude Code has with it over stdio.
 */

import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";

const STUB = fileURLToPath(new URL("./support/mcp_stub.ts", import.meta.url));

Deno.test("mcp stub answers initialize, tools/list and every tool's call", async () => {
  const requests = [
    { id: 1, method: "initialize", params: { protocolVersion: "2025-06-18" } },
    { method: "notifications/initialized" },
    { id: 2, method: "tools/list" },
    { id: 3, method: "tools/call", params: { name: "empty", arguments: {} } },
    { id: 4, method: "tools/call", params: { name: "blank" } },
    {
      id: 5,
      method: "tools/call",
      params: { name: "echo", arguments: { text: "hi" } },
    },
    {
      id: 6,
      method: "tools/call",
      params: { name: "fail", arguments: { size: 3, char: "x" } },
    },
    {
      id: 7,
      method: "tools/call",
      params: { name: "slow", arguments: { seconds: 0.01 } },
    },
    { id: 8, method: "nope" },
  ].map((r) => JSON.stringify({ jsonrpc: "2.0", ...r }) + "\n").join("");
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "--quiet", "--no-prompt", STUB],
    stdin: "piped",
    stdout: "piped",
    stderr: "null",
    signal: AbortSignal.timeout(20_000),
  }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode(requests));
  // Answers arrive in any order (calls run concurrently): read until all
  // eight are in, then close stdin, which ends the server.
  const replies = new Map<number, Record<string, unknown>>();
  let buffer = "";
  const decoder = new TextDecoder();
  for await (const chunk of child.stdout) {
    buffer += decoder.decode(chunk, { stream: true });
    const lines = buffer.split("\n");
    buffer = lines.pop()!;
    for (const line of lines) {
      const reply = JSON.parse(line);
      replies.set(reply.id, reply);
    }
    if (replies.size === 8) break;
  }
  await writer.close();
  const status = await child.status;
  assert.equal(status.success, true);
  assert.deepEqual([...replies.keys()].sort(), [1, 2, 3, 4, 5, 6, 7, 8]);
  const result = (id: number) =>
    replies.get(id)!.result as Record<string, unknown>;
  assert.equal(result(1).protocolVersion, "2025-06-18");
  assert.deepEqual(
    (result(2).tools as { name: string }[]).map((t) => t.name),
    ["empty", "blank", "echo", "fail", "slow"],
  );
  assert.deepEqual(result(3), { content: [] });
  assert.deepEqual(result(4), { content: [{ type: "text", text: "" }] });
  assert.deepEqual(result(5), { content: [{ type: "text", text: "hi" }] });
  assert.deepEqual(result(6), {
    content: [{ type: "text", text: "stub failure: xxx" }],
    isError: true,
  });
  assert.deepEqual(result(7), {
    content: [{ type: "text", text: "slept 0.01 s" }],
  });
  assert.equal((replies.get(8)!.error as { code: number }).code, -32601);
});
