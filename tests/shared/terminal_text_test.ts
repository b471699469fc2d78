/**
 * The terminal escaping rule: attacker text (tool names, ids, paths,
 * settings commands) is shown escaped, never emitted.
 */

import assert from "node:assert/strict";
import {
  escapeTerminal,
  ownSequence,
  sanitizeTerminalStream,
} from "../../src/shared/terminal_text.ts";
import { describe } from "../../src/shared/errors.ts";
import { MAX_CELL_CHARS, renderTable } from "../../src/shared/text_table.ts";
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
  const own = `${style.red("fail")}\t${style.bold("x")}\n${
    ownSequence("\r\x1b[2K")
  }progress${ownSequence("\x1b[0m")}\n`;
  assert.equal(
    sanitizeTerminalStream(own),
    "\x1b[31mfail\x1b[39m\t\x1b[1mx\x1b[22m\n\r\x1b[2Kprogress\x1b[0m\n",
  );
  for (const text of HOSTILE) {
    const out = sanitizeTerminalStream(text);
    assert.ok(!hasControl(out, true), JSON.stringify(out));
  }
  // Attacker colours that are not ours (conceal, blink) do not pass either.
  assert.equal(sanitizeTerminalStream("\x1b[8mhidden"), "\\u001b[8mhidden");
});

Deno.test("sanitizeTerminalStream() lets no text but stall-watch's own writer emit a sequence, not even the ones it writes itself", () => {
  // Before, the exact sequences of the colours and the progress line passed
  // from any text, so a file name could erase the line or paint it.
  assert.equal(
    sanitizeTerminalStream("a\r\x1b[2KAll clear\x1b[32mok\x1b[0m"),
    "a\\r\\u001b[2KAll clear\\u001b[32mok\\u001b[0m",
  );
  // A token with the wrong secret is inert text.
  const forged = ownSequence("\x1b[31m").replace(
    /[0-9a-f]{16}/,
    "0".repeat(16),
  );
  assert.ok(!hasControl(sanitizeTerminalStream(forged), true));
  assert.ok(!sanitizeTerminalStream(forged).includes("\x1b"));
});

Deno.test("escapeTerminal() escapes by Unicode category: format, private use, unassigned, TAGs, variation selectors and every invisible character", () => {
  const tag = (c: string) => String.fromCodePoint(0xe0000 + c.charCodeAt(0));
  const hidden = [
    "\u{e0001}", // LANGUAGE TAG
    tag("S") + tag("Y") + tag("S"), // TAG letters: read by models, invisible
    "\u{e007f}", // CANCEL TAG
    "\u2060", // word joiner
    "\u2061\u2062\u2063\u2064", // invisible operators
    "\u180e", // Mongolian vowel separator
    "\ufff9\ufffa\ufffb", // interlinear annotation
    "\u00ad", // soft hyphen
    "\u034f", // combining grapheme joiner
    "\ufe00\ufe0f", // variation selectors
    "\u{e0100}\u{e01ef}", // variation selectors supplement
    "\ue000\u{f0000}", // private use
    "\u0378\u{e0080}", // unassigned
    "\ud800", // a lone surrogate
    "\u3164\uffa0", // Hangul fillers
  ];
  for (const text of hidden) {
    const escaped = escapeTerminal(`a${text}b`);
    assert.ok(/^a(\\u[0-9a-f]{4})+b$/.test(escaped), JSON.stringify(escaped));
    // JSON reads the escapes back.
    assert.equal(JSON.parse(`"${escaped}"`), `a${text}b`);
    assert.equal(sanitizeTerminalStream(`a${text}b`), escaped);
  }
  assert.equal(escapeTerminal(tag("S")), "\\udb40\\udc53");
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

Deno.test("renderTable() caps every cell, so one name of a megabyte leaves its table narrow", () => {
  const out = renderTable(["tool", "calls"], [["x".repeat(900_000), "1"]]);
  for (const line of out.split("\n")) {
    assert.ok(line.length <= MAX_CELL_CHARS + 10, `${line.length}`);
  }
  assert.match(out, /x…x/);
});
