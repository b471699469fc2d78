/**
 * The tmux pane helper's reading of Claude Code's screen: whether a typed
 * prompt is still in the input box, from screens real releases drew.
 */

import assert from "node:assert/strict";
import { inputBoxHolds, promptTaken } from "./support/tmux.ts";

const RULE = "─".repeat(60);

Deno.test("inputBoxHolds() sees a prompt whose Enter was lost (2.0.76's screen)", () => {
  const screen = [
    "╭─── Claude Code v2.0.76 ───────────╮",
    "╰───────────────────────────────────╯",
    "  /model to try Opus 4.5",
    RULE,
    "> use mcp__stub__echo",
    RULE,
  ].join("\n");
  assert.equal(inputBoxHolds(screen, "use mcp__stub__echo"), true);
});

Deno.test("inputBoxHolds() is false once the prompt went into the conversation (2.1.47's screen)", () => {
  const screen = [
    "╭─── Claude Code v2.1.47 ───────────╮",
    "╰───────────────────────────────────╯",
    "  /model to try Opus 4.6",
    "❯ use mcp__stub__echo",
    "● Calling mcp__stub__echo.",
    RULE,
    "❯ ",
    RULE,
    "  ? for shortcuts",
  ].join("\n");
  assert.equal(inputBoxHolds(screen, "use mcp__stub__echo"), false);
});

Deno.test("promptTaken() wants the prompt in the conversation: a frame caught mid-redraw is no proof", () => {
  const text = "use mcp__stub__echo";
  const held = [RULE, `> ${text}`, RULE].join("\n");
  const sent = ["❯ " + text, "● Calling mcp__stub__echo.", RULE, "❯ ", RULE]
    .join("\n");
  assert.equal(promptTaken(held, text), false);
  assert.equal(promptTaken(sent, text), true);
  // Blank, or the box not drawn yet: the text is not on screen at all.
  assert.equal(promptTaken("", text), false);
  assert.equal(
    promptTaken(["╭─── Claude Code ───╮", RULE].join("\n"), text),
    false,
  );
});
