/**
 * What a Codex tool output says: empty when nothing follows the `Output:`
 * of Codex's header (or it is blank), content otherwise; a command still
 * running after `yield_time_ms` is content, not empty and not a hang. The
 * headers are the ones real Codex 0.171.0 wrote (`fixtures/codex/`).
 */

import assert from "node:assert/strict";
import {
  isEmptyToolOutput,
  isUserAbortText,
  readToolOutput,
} from "../../src/codex/_tool_output.ts";

const EXITED = "Chunk ID: ec1ef1\nWall time: 0.0000 seconds\n" +
  "Process exited with code 0\nOriginal token count: 2\nOutput:\n";

Deno.test("exec_command output: empty when nothing follows Output:", () => {
  assert.equal(isEmptyToolOutput(EXITED), true);
  assert.equal(isEmptyToolOutput(EXITED + "  \n\t\n"), true);
  assert.equal(isEmptyToolOutput(EXITED + "hello\n"), false);
  assert.equal(isEmptyToolOutput(EXITED.replace("code 0", "code 3")), true);
  assert.equal(isEmptyToolOutput(EXITED.replace(/\n/g, "\r\n")), true);
});

Deno.test("a command still running (yield_time_ms) is content: it hands the model a session to poll", () => {
  const running = "Chunk ID: f3c343\nWall time: 0.2505 seconds\n" +
    "Process running with session ID 99177\nOriginal token count: 0\nOutput:\n";
  assert.equal(isEmptyToolOutput(running), false);
});

Deno.test("apply_patch and MCP headers: Exit code and Wall time alone", () => {
  assert.equal(
    isEmptyToolOutput("Exit code: 0\nWall time: 0 seconds\nOutput:\n"),
    true,
  );
  assert.equal(
    isEmptyToolOutput(
      "Exit code: 0\nWall time: 0 seconds\nOutput:\nSuccess. Updated the following files:\nA hello.txt\n",
    ),
    false,
  );
  // MCP: the header's Output: is the text's last line, no newline after it.
  assert.equal(isEmptyToolOutput("Wall time: 0.0183 seconds\nOutput:"), true);
});

Deno.test("no Codex header: blank is empty, any text is content", () => {
  assert.equal(isEmptyToolOutput(""), true);
  assert.equal(isEmptyToolOutput(" \n "), true);
  assert.equal(isEmptyToolOutput("aborted"), false);
  assert.equal(isEmptyToolOutput("Output:\n"), false, "no header lines");
  // A line before Output: that is no header: the text is taken as it is.
  assert.equal(isEmptyToolOutput("Result follows\nOutput:\n"), false);
  assert.equal(
    isEmptyToolOutput("Wall time: 1 s\nsomething else\nOutput:\n"),
    false,
  );
  // Nine header lines is no header Codex writes.
  assert.equal(
    isEmptyToolOutput("Wall time: 1 s\n".repeat(9) + "Output:\n"),
    false,
  );
});

Deno.test("an output's value: a string, content items, or an unknown shape", () => {
  assert.equal(readToolOutput(EXITED).empty, true);
  assert.equal(
    readToolOutput([{ type: "input_text", text: "Wall time: 1 s\nOutput:" }])
      .empty,
    true,
  );
  assert.equal(
    readToolOutput([
      { type: "input_text", text: "Wall time: 1 s\nOutput:" },
      { type: "input_text", text: "42" },
    ]).empty,
    false,
  );
  // An image is content.
  assert.equal(
    readToolOutput([{ type: "input_image", image_url: "data:..." }]).empty,
    false,
  );
  assert.equal(readToolOutput([]).empty, true);
  assert.equal(readToolOutput(null).empty, true);
  assert.equal(readToolOutput(undefined).empty, true);
  // No known shape: content, so a new format cannot mass-flag sessions.
  assert.equal(readToolOutput({ content: "" }).empty, false);
  assert.equal(readToolOutput(7).empty, false);
});

Deno.test("an output of thousands of items or megabytes: only a bounded part is read", () => {
  const items = Array.from({ length: 100_000 }, () => ({
    type: "input_text",
    text: "",
  }));
  // Past the items read, it is not called empty: what was not read may hold something.
  assert.equal(readToolOutput(items).empty, false);
  assert.equal(readToolOutput(EXITED + "x".repeat(5_000_000)).empty, false);
  assert.equal(readToolOutput("x".repeat(5_000_000)).snippet.length, 400);
});

Deno.test("isUserAbortText(): Codex's own abort record only, never a command's or a server's output that ends the same way", () => {
  // What Codex 0.171.0 wrote when the user pressed Ctrl-C during a call.
  assert.equal(
    isUserAbortText("Wall time: 1.1 seconds\naborted by user"),
    true,
  );
  assert.equal(isUserAbortText("aborted by user\n"), true);
  assert.equal(isUserAbortText("Wall time: 1 s\r\naborted by user\r\n"), true);
  // A command printed it: after Codex's Output: line.
  assert.equal(isUserAbortText(`${EXITED}aborted by user`), false);
  assert.equal(isUserAbortText(`${EXITED}x\naborted by user\n`), false);
  // An MCP server said it: after the header item's Output:.
  assert.equal(
    isUserAbortText(
      readToolOutput([
        { type: "input_text", text: "Wall time: 0.01 seconds\nOutput:" },
        { type: "input_text", text: "aborted by user" },
      ]).snippet,
    ),
    false,
  );
  // A line that is no header, or more than Codex writes.
  assert.equal(isUserAbortText("tests failed\naborted by user"), false);
  assert.equal(
    isUserAbortText("Wall time: 1 s\n".repeat(9) + "aborted by user"),
    false,
  );
  assert.equal(isUserAbortText("aborted by user, then restarted"), false);
});
