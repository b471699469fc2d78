/**
 * The small helpers behind the commands' output: MCP tool names, numbers,
 * aligned tables with colour, the progress line and colour rules.
 */

import assert from "node:assert/strict";
import { formatBytes, formatCount } from "../../src/shared/number_format.ts";
import { progressLine } from "../../src/shared/progress_bar.ts";
import { colorEnabled, styleFor } from "../../src/shared/term_style.ts";
import { renderTable } from "../../src/shared/text_table.ts";
import { sanitizeTerminalStream } from "../../src/shared/terminal_text.ts";
import { parseMcpToolName } from "../../src/transcript/tool_name.ts";

Deno.test("parseMcpToolName() splits on __ only, and names a plugin server's plugin", () => {
  assert.deepEqual(parseMcpToolName("mcp__github__create_issue"), {
    server: "github",
    tool: "create_issue",
    plugin: null,
  });
  assert.deepEqual(parseMcpToolName("mcp__plugin_acme_db-tools__query"), {
    server: "plugin_acme_db-tools",
    tool: "query",
    plugin: "acme",
  });
  assert.deepEqual(parseMcpToolName("mcp__my-server_2__a__b"), {
    server: "my-server_2",
    tool: "a__b",
    plugin: null,
  });
  for (const name of ["Read", "mcp__github", "mcp____x", "mcp_x__y", ""]) {
    assert.equal(parseMcpToolName(name), null, name);
  }
});

Deno.test("formatCount() and formatBytes() read the same on every machine", () => {
  assert.equal(formatCount(0), "0");
  assert.equal(formatCount(999), "999");
  assert.equal(formatCount(16369), "16,369");
  assert.equal(formatCount(1234567), "1,234,567");
  assert.equal(formatBytes(512), "512 B");
  assert.equal(formatBytes(1536), "1.50 KiB");
  assert.equal(formatBytes(328_400_000), "313.2 MiB");
  assert.equal(formatBytes(2147485005), "2.00 GiB");
});

Deno.test("renderTable() aligns on visible text, so colour never shifts columns", () => {
  const red = (t: string) => `\x1b[31m${t}\x1b[39m`;
  const text = renderTable(
    ["kind", "n"],
    [[{ text: "hung_mcp_call", paint: red }, "12"], ["pending", "3"]],
    { rightAligned: [1], indent: "  " },
  );
  const plain = text.replaceAll("\x1b[31m", "").replaceAll("\x1b[39m", "");
  assert.equal(
    plain,
    "  kind            n\n  hung_mcp_call  12\n  pending         3\n",
  );
  assert.ok(text.includes(red("hung_mcp_call") + "  12"));
  assert.equal(renderTable(["a"], []), "");
});

Deno.test("progressLine() shows the share done and the end of a long label", () => {
  assert.equal(progressLine(0, 0, "x"), `[${"#".repeat(24)}] 100%  x`);
  const half = progressLine(50, 100, "a".repeat(60) + ".jsonl");
  assert.ok(half.startsWith(`[${"#".repeat(12)}${"-".repeat(12)}]  50%  …`));
  assert.ok(half.endsWith("a.jsonl"));
  assert.ok(half.length < 80);
});

Deno.test("styleFor() colours only a terminal without NO_COLOR or TERM=dumb", () => {
  const io = (env: Record<string, string>, tty: boolean) => ({
    env,
    stdoutIsTerminal: tty,
    stderrIsTerminal: false,
  });
  assert.equal(
    sanitizeTerminalStream(styleFor(io({}, true), "stdout").red("x")),
    "\x1b[31mx\x1b[39m",
  );
  assert.equal(styleFor(io({}, true), "stderr").red("x"), "x");
  assert.equal(styleFor(io({}, false), "stdout").red("x"), "x");
  assert.equal(styleFor(io({ NO_COLOR: "1" }, true), "stdout").red("x"), "x");
  assert.equal(styleFor(io({ NO_COLOR: "" }, true), "stdout").enabled, true);
  assert.equal(styleFor(io({ TERM: "dumb" }, true), "stdout").enabled, false);
});

Deno.test("colorEnabled(): --color always|never wins, then FORCE_COLOR, then NO_COLOR, then the terminal", () => {
  const io = (
    env: Record<string, string>,
    tty: boolean,
    color?: "auto" | "always" | "never",
  ) => ({
    env,
    stdoutIsTerminal: tty,
    stderrIsTerminal: false,
    ...(color ? { color } : {}),
  });
  assert.equal(colorEnabled(io({}, false, "always"), "stdout"), true);
  assert.equal(
    colorEnabled(io({ NO_COLOR: "1" }, false, "always"), "stdout"),
    true,
  );
  assert.equal(colorEnabled(io({}, true, "never"), "stdout"), false);
  assert.equal(
    colorEnabled(io({ FORCE_COLOR: "1" }, true, "never"), "stdout"),
    false,
  );
  assert.equal(colorEnabled(io({}, true, "auto"), "stdout"), true);
  assert.equal(colorEnabled(io({ FORCE_COLOR: "1" }, false), "stdout"), true);
  assert.equal(
    colorEnabled(io({ FORCE_COLOR: "3", NO_COLOR: "1" }, false), "stderr"),
    true,
  );
  assert.equal(colorEnabled(io({ FORCE_COLOR: "0" }, true), "stdout"), false);
  assert.equal(
    colorEnabled(io({ FORCE_COLOR: "false" }, true), "stdout"),
    false,
  );
  assert.equal(colorEnabled(io({ FORCE_COLOR: "" }, true), "stdout"), true);
  assert.equal(
    colorEnabled(io({ FORCE_COLOR: "1", TERM: "dumb" }, false), "stdout"),
    true,
  );
});
