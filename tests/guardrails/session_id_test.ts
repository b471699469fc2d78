import assert from "node:assert/strict";
import { safeSessionId } from "../../src/guardrails/session_id.ts";

Deno.test("safeSessionId() keeps ids inside the state folder", () => {
  assert.equal(safeSessionId("abc/../etc"), "abc_.._etc");
  assert.equal(safeSessionId("../../../../tmp/x"), ".._.._.._.._tmp_x");
  assert.equal(safeSessionId(".."), "session2");
  assert.equal(safeSessionId(""), "session0");
  assert.equal(safeSessionId("C:\\Windows\\x"), "C__Windows_x");
  assert.equal(safeSessionId("5f1e-uuid.v4_ok"), "5f1e-uuid.v4_ok");
  assert.equal(safeSessionId("x".repeat(500)).length, 128);
});

Deno.test("safeSessionId() never names a file after a Windows device: CON.json would open the console", () => {
  assert.equal(safeSessionId("CON"), "_CON");
  assert.equal(safeSessionId("nul.x"), "_nul.x");
  assert.equal(safeSessionId("com1"), "_com1");
  assert.equal(safeSessionId("lpt9 "), "lpt9_");
  assert.equal(safeSessionId("CONSOLE"), "CONSOLE");
  // Stable: the sweeper knows its own files by the same rule.
  assert.equal(safeSessionId("_CON"), "_CON");
});
