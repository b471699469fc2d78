import assert from "node:assert/strict";
import {
  summarizeRawToolInput,
  summarizeToolInput,
  TOOL_INPUT_CHARS,
} from "../../src/transcript/tool_input.ts";

Deno.test("summarizeToolInput() picks the most telling field of a known tool", () => {
  assert.deepEqual(
    summarizeToolInput({ file_path: "/src/a.ts", content: "x" }),
    { field: "file_path", value: "/src/a.ts" },
  );
  assert.deepEqual(
    summarizeToolInput({ description: "list", command: "ls -la /tmp" }),
    { field: "command", value: "ls -la /tmp" },
  );
  assert.deepEqual(
    summarizeToolInput({ path: "src", pattern: "TODO", glob: "*.ts" }),
    { field: "pattern", value: "TODO" },
  );
  assert.deepEqual(
    summarizeToolInput({ url: "https://example.com/x", prompt: "summarise" }),
    { field: "url", value: "https://example.com/x" },
  );
  assert.deepEqual(
    summarizeToolInput({
      prompt: "a long task",
      description: "check the tool",
      subagent_type: "general-purpose",
    }),
    { field: "description", value: "check the tool" },
  );
});

Deno.test("summarizeToolInput() falls back to an MCP tool's first scalar field", () => {
  assert.deepEqual(summarizeToolInput({ text: "forty-two" }), {
    field: "text",
    value: "forty-two",
  });
  assert.deepEqual(summarizeToolInput({ options: {}, limit: 5 }), {
    field: "limit",
    value: "5",
  });
  // A key that is not a plain name is never shown.
  assert.equal(summarizeToolInput({ "evil\nkey": "x" }), null);
  assert.deepEqual(summarizeToolInput({}), { field: "", value: "" });
  assert.equal(summarizeToolInput(undefined), null);
  assert.equal(summarizeToolInput(["file_path"]), null);
});

Deno.test("summarizeToolInput() keeps at most TOOL_INPUT_CHARS characters of one value", () => {
  const long = summarizeToolInput({ command: "echo " + "y".repeat(5000) });
  assert.equal(long?.value.length, TOOL_INPUT_CHARS);
  assert.ok(long?.value.endsWith("…"));
  // A cut never leaves half a surrogate pair.
  const emoji = "😀".repeat(200);
  const cut = summarizeToolInput({ query: emoji })?.value ?? "";
  assert.ok(cut.length <= TOOL_INPUT_CHARS);
  assert.equal(cut.slice(0, -1), "😀".repeat((cut.length - 1) / 2));
});

Deno.test("summarizeRawToolInput() reads a telling first field from a cut line", () => {
  assert.deepEqual(
    summarizeRawToolInput('{"file_path":"/a/b \\"c\\".md","content":"…'),
    { field: "file_path", value: '/a/b "c".md' },
  );
  // Cut inside an escape: the partial escape is dropped.
  assert.deepEqual(summarizeRawToolInput('{"command":"echo \\u00'), {
    field: "command",
    value: "echo",
  });
  assert.equal(summarizeRawToolInput('{"content":"/etc/passwd"'), null);
  assert.equal(summarizeRawToolInput('{"file_path":5}'), null);
});
