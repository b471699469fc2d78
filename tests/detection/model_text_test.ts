/**
 * What the model's closing words say: an announcement of its own next
 * action, a hand-back, a complete answer. Examples of each phrasing the
 * docs list, and properties that must hold for any text.
 */

import assert from "node:assert/strict";
import fc from "fast-check";
import {
  judgeClosingText,
  MAX_QUOTE_CHARS,
} from "../../src/detection/_model_text.ts";
import { announcedStop } from "../../src/detection/announcement.ts";
import type { Entry } from "../../src/transcript/entry.ts";
import { fuzzParameters } from "../support/fuzz.ts";

const REPORT = [
  "## Summary",
  "",
  "The parser now keeps the byte offset of every line it yields, so the",
  "hook can number the lines of a stall without reading the file twice.",
  "The benchmark shows no change on 100 MB transcripts, and every fixture",
  "gives the same verdict as before. The audit reads the same number of",
  "turns on the generated history, and the docs say what changed. Nothing",
  "else needed a change, and no setting is new.",
].join("\n");

Deno.test("judgeClosingText() knows an announcement of the model's own next action", () => {
  for (
    const [text, quote] of [
      ["Let me run the tests now:", "Let me run the tests now:"],
      ["The build failed. Let's check the logs.", "Let's check the logs."],
      ["I'll update the config next.", "I'll update the config next."],
      ["Now I will fix the import.", "Now I will fix the import."],
      [
        "OK, I'm going to restart the server.",
        "OK, I'm going to restart the server.",
      ],
      [
        "Great! Next, let me add the tests:",
        "Next, let me add the tests:",
      ],
      [
        "Done with the API.\n\n**Next:** writing the admin pages",
        "Next: writing the admin pages",
      ],
      [
        "You can try it now while I continue with the docs.",
        "You can try it now while I continue with the docs.",
      ],
      ["Let me summarize:", "Let me summarize:"],
      [
        `${REPORT}\n\nNow let me commit these changes.`,
        "Now let me commit these changes.",
      ],
      ["讓我檢查一下建置結果：", "讓我檢查一下建置結果："],
    ]
  ) {
    const judged = judgeClosingText(text as string);
    assert.equal(judged.announcement, quote, text);
    assert.equal(judged.leadsOn, true, text);
    assert.equal(judged.complete, false, text);
  }
});

Deno.test("judgeClosingText() never takes a question, a hand-back, a condition, a deferral, next steps for the user or what was already said for an announcement", () => {
  for (
    const text of [
      "Shall I run the tests now?",
      "Let me know if you want the tests run.",
      "Let me know which option you prefer:",
      "Once you confirm, I'll run the migration.",
      "If you'd like, I can run the tests.",
      "I'll summarise the results when the build finishes.",
      "Tell me the output and I'll continue.",
      "I'll check back later.",
      "Next steps: run `npm install` and restart the server.",
      "**Next steps:** Create the API routes.",
      "Let me note that the build passed.",
      "Let me explain: the cache was stale.",
      "I will not change anything else.",
      "I'll wait for your go-ahead.",
      "I'll be here if you need anything else.",
      "I'm going to need your API key to continue.",
      "Which would you like:\n\n1. A single commit\n2. Three commits",
      "Everything is in place and the tests pass.",
      "",
    ]
  ) {
    assert.equal(judgeClosingText(text).announcement, null, text);
  }
});

Deno.test("judgeClosingText(): a complete answer is a hand-back or a report that leads on to nothing", () => {
  assert.equal(judgeClosingText(REPORT).complete, true);
  assert.equal(judgeClosingText("Done. Want me to commit?").complete, true);
  assert.equal(
    judgeClosingText(`${REPORT}\nUpdating the todo list:`).complete,
    false,
  );
  assert.equal(judgeClosingText("Checking.").complete, false);
  assert.equal(judgeClosingText("讓我更新待辦：").complete, false);
});

Deno.test("judgeClosingText(): a question is never an announcement, and a quote is the model's words, cut", () => {
  const sentence = fc.stringMatching(/^[A-Za-z ,']{0,80}$/);
  fc.assert(
    fc.property(sentence, sentence, (indented, words) => {
      // A first line indented four spaces is an indented code block, not
      // the model's prose: the sentence starts at the margin.
      const before = indented.trimStart();
      const asked = `${before}. Let me ${words}?`;
      assert.equal(judgeClosingText(asked).announcement, null);
      assert.equal(judgeClosingText(asked).handsBack, true);
      const told = judgeClosingText(`${before}. Let me ${words}`);
      if (told.announcement !== null) {
        assert.ok(told.announcement.length <= MAX_QUOTE_CHARS);
        assert.ok(`${before}. Let me ${words}`.includes(
          told.announcement.replace(/…$/, ""),
        ));
      }
    }),
    fuzzParameters(300),
  );
  const long = `Let me ${"really ".repeat(80)}fix it.`;
  const quote = judgeClosingText(long).announcement ?? "";
  assert.equal(quote.length, MAX_QUOTE_CHARS);
  assert.ok(quote.endsWith("…"));
});

let offset = 0;
function assistant(texts: string[], calls: string[] = [], extra = {}): Entry {
  return {
    kind: "assistant",
    offset: offset += 100,
    line: offset / 100,
    promptId: null,
    sidechain: false,
    messageId: `msg_${offset}`,
    texts,
    toolUses: calls.map((id) => ({ id, name: "Bash" })),
    ...extra,
  };
}
function results(id: string, snippet = "ok"): Entry {
  return {
    kind: "results",
    offset: offset += 100,
    line: offset / 100,
    promptId: null,
    sidechain: false,
    results: [{ toolUseId: id, empty: false, userStopped: false, snippet }],
  };
}
const none = { backgroundTasks: [] };

Deno.test("announcedStop() fires only when nothing else explains the stop", () => {
  const work = () => [assistant(["Running it."], ["t1"]), results("t1")];
  const final = "Let me run the tests now:";
  const fired = announcedStop([...work(), assistant([final])], none, false);
  assert.equal(fired?.announcement, final);
  // No tool work in the turn: a plain answer, not a stop mid-task.
  assert.equal(announcedStop([assistant([final])], none, false), null);
  // Another stall explains it; background work may wake the model.
  assert.equal(
    announcedStop([...work(), assistant([final])], none, true),
    null,
  );
  assert.equal(
    announcedStop([...work(), assistant([final])], {
      backgroundTasks: [{
        id: "b1",
        type: "shell",
        status: "running",
        server: "",
        tool: "",
        toolUseId: "",
      }],
    }, false),
    null,
  );
  const launch = results("t2", "Command running in background with ID: b7e2k9");
  const launched = [
    assistant(["Starting the server."], ["t2"]),
    launch,
    assistant([final]),
  ];
  // A command's output saying so launches nothing: Claude Code's record
  // of the call (toolUseResult) must have a launch's shape.
  assert.notEqual(announcedStop(launched, none, false), null);
  if (launch.kind === "results") launch.results[0]!.launchRecord = true;
  assert.equal(announcedStop(launched, none, false), null);
  // The final message made its call, was cut off, or the user stopped it.
  assert.equal(
    announcedStop([...work(), assistant([final], ["t3"])], none, false),
    null,
  );
  assert.equal(
    announcedStop(
      [...work(), assistant([final], [], { stopReason: "max_tokens" })],
      none,
      false,
    ),
    null,
  );
  const interrupted: Entry = {
    kind: "interrupt",
    offset: offset += 100,
    line: offset / 100,
    promptId: null,
    sidechain: false,
  };
  assert.equal(
    announcedStop([...work(), assistant([final]), interrupted], none, false),
    null,
  );
  // An API error after it: Claude Code ended the turn, not the model.
  const error = assistant(["API Error: 500"], [], {
    synthetic: true,
    apiError: true,
  });
  assert.equal(
    announcedStop([...work(), assistant([final]), error], none, false),
    null,
  );
});
