/**
 * The terminal escaping rule: attacker text (tool names, ids, paths,
 * settings commands) is shown escaped, never emitted.
 */

import assert from "node:assert/strict";
import {
  escapeTerminal,
  sanitizeTerminalStream,
} from "../../src/shared/terminal_text.ts";
import { describe } from "../../src/shared/errors.ts";
import { renderTable } from "../../src/shared/text_table.ts";
import { styleFor } from "../../src/shared/term_style.ts";

/** Every character class the rule must neutralise, one sample each. */
const HOSTILE = [
  "\x1b]52;c;ZWNobyBoaQ==\x07", // OSC 52: set the clipboard
  "\x1b[2J\x1b[H", // CSI: clear the screen
  "\x9b31m", // C1 CSI
  "ok\rforged", // CR overwrites the line
  "a\nstall_watch: forged line",
  "\x7f",
  "\u202eevil\u202c", // bidi override
  "\u2066iso\u2069",
  "zero\u200bwidth",
  "line\u2028sep",
  "\x00nul",
];

/** Whether `text` holds any character the terminal could act on. */
function hasControl(text: string, allowNewline = false): boolean {
  const pattern = allowNewline
    // deno-lint-ignore no-control-regex
    ? /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028-\u202e\u2066-\u2069\ufeff]/
    // deno-lint-ignore no-control-regex
    : /[\u0000-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028-\u202e\u2066-\u2069\ufeff]/;
  return pattern.test(text);
}

Deno.test("escapeTerminal() shows control, bidi and invisible characters escaped, on one line", () => {
  for (const text of HOSTILE) {
    const escaped = escapeTerminal(text);
    assert.ok(!hasControl(escaped), JSON.stringify(escaped));
  }
  assert.equal(escapeTerminal("a\nb\rc\td"), "a\\nb\\rc\\td");
  assert.equal(escapeTerminal("\x1b[31mred"), "\\u001b[31mred");
  assert.equal(escapeTerminal("\u202egnp.exe"), "\\u202egnp.exe");
  assert.equal(escapeTerminal("\x9b"), "\\u009b");
  // Ordinary text, accents and emoji pass unchanged.
  assert.equal(
    escapeTerminal("mcp__gh__x Größe 日本 🎉"),
    "mcp__gh__x Größe 日本 🎉",
  );
});

Deno.test("sanitizeTerminalStream() keeps newlines, tabs and stall-watch's own colours, escapes the rest", () => {
  const style = styleFor(
    { env: {}, stdoutIsTerminal: true, stderrIsTerminal: true },
    "stdout",
  );
  const own = `${style.red("fail")}\t${
    style.bold("x")
  }\n\r\x1b[2Kprogress\x1b[0m\n`;
  assert.equal(sanitizeTerminalStream(own), own);
  for (const text of HOSTILE) {
    const out = sanitizeTerminalStream(text);
    assert.ok(!hasControl(out, true), JSON.stringify(out));
  }
  // Attacker colours that are not ours (conceal, blink) do not pass either.
  assert.equal(sanitizeTerminalStream("\x1b[8mhidden"), "\\u001b[8mhidden");
});

Deno.test("sanitizeTerminalStream() leaves JSON output the same JSON", () => {
  const value = { tool: "a\u202eb\x7f\x85\u2028", id: "\\\u202e" };
  const json = JSON.stringify(value);
  const out = sanitizeTerminalStream(json);
  assert.ok(!hasControl(out));
  assert.deepEqual(JSON.parse(out), value);
});

Deno.test("describe() escapes control characters in an error message instead of emitting them", () => {
  const line = describe(
    new Error("Cannot read /tmp/a\x1b]0;title\x07\rb\nforged line"),
  );
  assert.ok(!hasControl(line), line);
  assert.equal(line, "Cannot read /tmp/a\\u001b]0;title\\u0007\\rb");
});

Deno.test("renderTable() escapes cells and handles 130,000 rows without a stack overflow", () => {
  const out = renderTable(["tool", "id"], [["Bash\nforged", "\x1b[2Jx"]]);
  assert.equal(out.split("\n").length, 3);
  assert.ok(!hasControl(out, true));
  const rows = Array.from({ length: 130_000 }, (_, i) => [`s${i}`, "1"]);
  assert.equal(renderTable(["session", "n"], rows).split("\n").length, 130_002);
});
