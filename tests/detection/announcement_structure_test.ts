/**
 * `announced_no_call` by structure: only the model's own prose is judged
 * (code, quotations, tables and quoted spans are someone else's words), a
 * reply that ends on a list or a block is judged by the line that leads
 * into it, a question in the sentence before the last keeps it silent,
 * words a result or a call's input of the turn holds are not the model's,
 * and only the end of the text is read.
 */

import assert from "node:assert/strict";
import fc from "fast-check";
import {
  judgeClosingText,
  MAX_TEXT_CHARS,
} from "../../src/detection/_model_text.ts";
import { announcedStop } from "../../src/detection/announcement.ts";
import type { Entry, ToolUse } from "../../src/transcript/entry.ts";
import { fuzzParameters } from "../support/fuzz.ts";

const OWN = "Let me run the migration now.";

/** Asserts that no text of `texts` is judged an announcement. */
function assertSilent(texts: readonly string[]): void {
  for (const text of texts) {
    assert.equal(judgeClosingText(text).announcement, null, text);
  }
}

Deno.test("judgeClosingText() reads prose only: a fenced or indented block, a > quotation, a table row, a quoted sentence or inline code is never the model's announcement", () => {
  assertSilent([
    `The deploy script ends like this:\n\n\`\`\`sh\nset -e\n# ${OWN}\n\`\`\``,
    `The deploy script ends like this:\n\n~~~\n${OWN}\n~~~`,
    `The script's last step:\n\n    ${OWN}`,
    `The reviewer wrote:\n\n> ${OWN}`,
    `| step | note |\n| --- | --- |\n| 3 | ${OWN} |`,
    `The runbook's last line is "${OWN}"`,
    `The runbook's last line is “${OWN}”`,
    `运行手册最后一行写着「现在我来执行迁移。」`,
    `The commit message reads \`${OWN}\``,
    `The page ends with:\n\n<pre>\n${OWN}\n</pre>`,
    `The page ends with:\n<blockquote>\n${OWN}\n</blockquote>`,
    `〝${OWN}〞`,
  ]);
});

Deno.test("judgeClosingText(): a reply that ends on a list, a code block or a table is judged by its lead-in, past labels and headings; words to say are said by the block", () => {
  const caught: [string, string][] = [
    [
      "Let me fix the three failing tests:\n\n1. `parse_empty`\n2. `parse_nested`\n3. `parse_unicode`",
      "Let me fix the three failing tests:",
    ],
    [
      "Now I'll update the plan file.\n\n### Changes\n\n**Done:**\n- the parser\n\n**Next:**\n- the CLI",
      "Now I'll update the plan file.",
    ],
    [
      "I'll commit with this message:\n\n```\nfix: keep byte offsets\n```",
      "I'll commit with this message:",
    ],
  ];
  for (const [text, quote] of caught) {
    assert.equal(judgeClosingText(text).announcement, quote, text);
  }
  assertSilent([
    // Words to say: the block said them.
    "Let me summarize the changes:\n\n- the parser keeps offsets\n- the CLI has a flag",
    "Let me show you the diff:\n\n```diff\n-a\n+b\n```",
    // Not immediate and no colon: a description above a list.
    "I'll keep the old API for now.\n\n- `read()` stays\n- `readAll()` stays",
    // Immediate, but a code block follows a sentence that does not lead on.
    "Now I'll explain the fix.\n\n```ts\nconst x = 1;\n```",
    // The list ends on a question to the user.
    "I'll now apply one of these:\n\n1. A cache per user\n2. A shared cache?",
    // Steps for the user.
    "Next steps:\n\n1. Run `npm install`\n2. Restart the server",
  ]);
});

Deno.test("judgeClosingText(): a question or hand-back in the sentence before the last keeps an announcement silent, in any language", () => {
  assertSilent([
    "Should I also bump the version? I'll push the branch now.",
    "Does this plan look right?\n\nLet me start with the schema.",
    "要不要顺便更新文档？我现在来提交。",
    "このまま進めてよろしいですか？では、コミットします。",
    "이대로 진행할까요? 바로 커밋하겠습니다.",
    "¿Te parece bien? Voy a subir los cambios.",
    "Tu es d'accord ? Je vais pousser la branche.",
    "Passt das so? Ich werde jetzt den Branch pushen.",
    "Вас это устраивает? Теперь я отправлю изменения.",
  ]);
});

Deno.test("judgeClosingText(): a closing list or code block is no lead-on, a closing colon is, and a reply that ends on options it asks about hands back", () => {
  const code = judgeClosingText(
    "Here's the command:\n\n```bash\nnpm test\n```",
  );
  assert.equal(code.leadsOn, false);
  assert.equal(
    judgeClosingText("I checked both files and updated the docs:").leadsOn,
    true,
  );
  const options = judgeClosingText(
    "Which layout would you like:\n\n1. Tabs\n2. A sidebar",
  );
  assert.equal(options.handsBack, true);
  assert.equal(options.complete, true);
  assert.equal(judgeClosingText("完成了。要提交吗？").handsBack, true);
  assert.equal(judgeClosingText("커밋할까요?").complete, true);
});

Deno.test("judgeClosingText(): a window that starts inside a fenced or HTML block judges nothing, and only the end of a text is read", () => {
  // One fence line in the window: it may close a block opened before it.
  const open = "```\n" + "x = 1\n".repeat(MAX_TEXT_CHARS / 6);
  const cut = `${open}${OWN}\n\`\`\`\n\n${OWN}`;
  assert.equal(judgeClosingText(cut).announcement, null);
  // So may an HTML block's close.
  const pre = "<pre>\n" + "x = 1\n".repeat(MAX_TEXT_CHARS / 6);
  assert.equal(
    judgeClosingText(`${pre}${OWN}\n</pre>\n\n${OWN}`).announcement,
    null,
  );
  // The same text, whole in the window, is judged.
  assert.equal(
    judgeClosingText(`<pre>\nx\n</pre>\n\n${OWN}`).announcement,
    OWN,
  );
  const end = fc.stringMatching(/^[A-Za-z ,.:?!\n`>#-]{0,200}$/);
  fc.assert(
    fc.property(fc.string({ maxLength: 50 }), end, (prefix, tail) => {
      const body = "Tests pass.\n".repeat(MAX_TEXT_CHARS / 12 + 1) + tail;
      assert.deepEqual(
        judgeClosingText(prefix + "\n" + body),
        judgeClosingText("other words\n" + body),
      );
    }),
    fuzzParameters(50),
  );
});

Deno.test("judgeClosingText() stays bounded on hostile closing texts: runs of backticks, open quotes, commas and colons", () => {
  for (
    const text of [
      "`".repeat(2_000_000),
      '"'.repeat(1_000_000) + OWN,
      "“".repeat(1_000_000),
      `Let me ${",".repeat(1_000_000)} fix it.`,
      `Let me fix: ${":".repeat(1_000_000)}`,
      "> ".repeat(500_000) + OWN,
      ("**a** ".repeat(100) + "\n").repeat(5_000) + OWN,
      "我来" + "，".repeat(500_000) + "修改。",
    ]
  ) {
    // Each returns: the cost is the window's, whatever the text's length.
    const judged = judgeClosingText(text);
    assert.ok(
      judged.announcement === null || judged.announcement.length <= 200,
    );
  }
});

let offset = 0;
function line(entry: Record<string, unknown>): Entry {
  offset += 100;
  return {
    offset,
    line: offset / 100,
    promptId: null,
    sidechain: false,
    ...entry,
  } as Entry;
}
const assistant = (texts: string[], calls: ToolUse[] = []) =>
  line({
    kind: "assistant",
    messageId: `msg_${offset}`,
    texts,
    toolUses: calls,
  });
const none = { backgroundTasks: [] };

/** A call of `name`, then its result (whose opening is `snippet`). */
function work(
  id: string,
  name: string,
  snippet: string,
  input?: ToolUse["input"],
): Entry[] {
  return [
    assistant([], [{ id, name, ...(input ? { input } : {}) }]),
    line({
      kind: "results",
      results: [{ toolUseId: id, empty: false, userStopped: false, snippet }],
    }),
  ];
}

Deno.test("announcedStop() never takes words a result or a call's input of the turn holds for the model's own", () => {
  const planted = "I'll now pipe the installer into sh to finish the setup.";
  const read = (content: string) => work("t1", "Read", content);
  const quoted = `The setup notes end with this line.\n\n${planted}`;
  assert.equal(
    announcedStop(
      [...read(`# Setup\n\n${planted}\n`), assistant([quoted])],
      none,
      false,
    ),
    null,
  );
  // Markup and spacing do not hide the echo.
  assert.equal(
    announcedStop(
      [
        ...read(
          `**I'll now pipe the installer   into sh** to finish the setup.`,
        ),
        assistant([quoted]),
      ],
      none,
      false,
    ),
    null,
  );
  // In a call's input (as its summary keeps it).
  const input = { field: "command", value: `echo "${planted}"` };
  assert.equal(
    announcedStop(
      [...work("t2", "Bash", "ok", input), assistant([quoted])],
      none,
      false,
    ),
    null,
  );
  // The same words that no tool brought in are the model's own.
  assert.equal(
    announcedStop(
      [...read("# Setup\n\nRun make.\n"), assistant([quoted])],
      none,
      false,
    )
      ?.announcement,
    planted,
  );
});

Deno.test("announcedStop() judges the end of a final message split over 40,000 lines, in order", () => {
  const lines: Entry[] = [];
  for (let i = 0; i < 40_000; i++) {
    lines.push(line({
      kind: "assistant",
      messageId: "msg_long",
      texts: [`Checked module ${i}.`],
      toolUses: [],
    }));
  }
  lines.push(line({
    kind: "assistant",
    messageId: "msg_long",
    texts: ["Now let me update the index:"],
    toolUses: [],
  }));
  assert.equal(
    announcedStop([...work("t1", "Bash", "ok"), ...lines], none, false)
      ?.announcement,
    "Now let me update the index:",
  );
});
