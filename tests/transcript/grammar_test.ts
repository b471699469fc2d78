/**
 * The transcript's grammar (docs/detection.md, "The transcript's grammar"),
 * row by row, on what the real client wrote: captures of the real-client
 * tier (`fixtures/real/`, `deno task fixtures:claude`), and, for the rows
 * the tier cannot make Claude Code write through the fake API (an interrupt
 * typed over a running turn, a background task's notice, a subagent run
 * while its parent takes new prompts), real lines changed only where the
 * client's source says that row differs. Each row is read by the audit and
 * by the hook at the turn's end, which must agree.
 */

import assert from "node:assert/strict";
import {
  isEntry,
  isPrompt,
  isResult,
  type Line,
  realLines,
  shiftTime,
  withFields,
} from "../support/real_lines.ts";
import { historyOf, hookTurnOf } from "../support/turn_views.ts";
import { resolve } from "node:path";
import { FIXTURES_DIR } from "../support/cases.ts";

/** 1-based numbers of the lines that `keep` holds. */
function linesWhere(lines: readonly Line[], keep: (l: Line) => boolean) {
  return lines.flatMap((l, i) => keep(l) ? [i + 1] : []);
}

/** The text of a user line's content, its blocks joined. */
function userText(line: Line): string {
  if (!isEntry(line, "user")) return "";
  const content = (line.message as { content?: unknown }).content;
  if (typeof content === "string") return content;
  return Array.isArray(content)
    ? content.map((b) => typeof b?.text === "string" ? b.text : "").join("")
    : "";
}

/** Whether a line is a slash command's line (`<command-message>...`). */
function isCommandLine(line: Line): boolean {
  return /^<command-(message|name)>/.test(userText(line).trimStart());
}

/** The first line of a turn that ends on the model's reply: its last line. */
function turnEndsAt(lines: readonly Line[], before: number): Line[] {
  return lines.slice(0, before - 1);
}

Deno.test("grammar: a command the model launches with the SlashCommand tool never opens a turn; the same command typed does (real 2.0.72)", async () => {
  const lines = realLines("real_slash_command_tool_2.0.72.jsonl");
  const [launched, typed] = linesWhere(lines, isCommandLine);
  assert.ok(launched && typed, "the capture holds both");
  const launchLine = lines[launched - 1] as Record<string, unknown>;
  assert.equal(typeof launchLine.sourceToolUseID, "string");
  assert.match(
    JSON.stringify(lines[launched - 2]),
    /Launching command: \/echo-twice/,
  );
  // 1.0.x and 2.0.x before about 2.0.50 stamp no sourceToolUseID: the
  // launch result right before the line says it.
  const unstamped = lines.map((l) =>
    isEntry(l) ? withFields(l, { sourceToolUseID: undefined }) : l
  );
  for (const file of [lines, unstamped]) {
    const turns = await historyOf(file);
    assert.deepEqual(turns.map((t) => t.startLine), [2, typed]);
    assert.ok(turns[0]?.lines.includes(launched));
    assert.deepEqual(turns.map((t) => t.verdict.signatures), [[], []]);
    // The hook at the end of the prompt's turn reads it whole.
    const hook = await hookTurnOf(turnEndsAt(file, typed));
    assert.deepEqual(hook.lines, turns[0]?.lines);
    assert.deepEqual(hook.signatures, []);
  }
});

Deno.test("grammar: a skill the model loads with the Skill tool goes on in its turn; one the user invokes opens a turn (real 2.0.76, 2.1.332)", async () => {
  for (const release of ["2.0.76", "2.1.332"]) {
    const lines = realLines(`real_skill_tool_${release}.jsonl`);
    const loaded = linesWhere(
      lines,
      (l) => isEntry(l, "user") && typeof l.sourceToolUseID === "string",
    );
    assert.equal(loaded.length, 1, release);
    const turns = await historyOf(lines);
    assert.ok(turns[0]?.lines.includes(loaded[0] as number), release);
    assert.deepEqual(
      turns.map((t) => t.verdict.signatures),
      turns.map(() => []),
      release,
    );
    const invoked = linesWhere(lines, isCommandLine);
    if (release === "2.0.76") {
      // 2.0.76 lets only the model run a project skill: the typed name and
      // the refusal, which the model never answers.
      assert.deepEqual(invoked, [], release);
      assert.deepEqual(turns.map((t) => t.startLine), [2, 13], release);
      continue;
    }
    assert.deepEqual(turns.map((t) => t.startLine), [3, invoked[0]], release);
    const hook = await hookTurnOf(lines);
    assert.deepEqual(hook.lines, turns[1]?.lines, release);
  }
});

Deno.test("grammar: a local command the user types (/context: caveat, command line, output) opens no turn, whatever promptId 2.1.x stamps on it (real 2.0.76, 2.1.332)", async () => {
  for (const release of ["2.0.76", "2.1.332"]) {
    const lines = realLines(`real_local_command_${release}.jsonl`);
    const [command] = linesWhere(lines, isCommandLine);
    assert.ok(command, release);
    if (release === "2.1.332") {
      const first = lines.find(isPrompt) as Record<string, unknown>;
      const line = lines[command - 1] as Record<string, unknown>;
      assert.notEqual(line.promptId, first.promptId, "its own promptId");
    }
    const turns = await historyOf(lines);
    assert.equal(turns.length, 1, release);
    assert.ok(turns[0]?.lines.includes(command), release);
    assert.deepEqual(turns[0]?.verdict.signatures, [], release);
    const hook = await hookTurnOf(lines);
    assert.deepEqual(hook.lines, turns[0]?.lines, release);
    // The next prompt opens the next turn.
    const prompt = withFields(lines.find(isPrompt) as Record<string, unknown>, {
      promptId: crypto.randomUUID(),
      uuid: crypto.randomUUID(),
    });
    const next = await historyOf([...lines, prompt]);
    assert.deepEqual(next.map((t) => t.startLine)[1], lines.length + 1);
  }
});

/**
 * Real 2.1.332 lines (the custom command capture) whose first turn the
 * user interrupted while its call ran, by typing the next prompt: Claude
 * Code writes the call's result and its interrupt marker from the aborted
 * query, stamped with the new prompt's promptId (the session's current one
 * by then), and names the cut-off message (`interruptedMessageId`, from
 * about 2.1.2xx), then the prompt's line.
 */
function interruptedByNextPrompt(): { lines: Line[]; marker: number } {
  const lines = realLines("real_custom_command_turn_2.1.332.jsonl");
  const result = lines.findIndex(isResult);
  const call = lines.findLastIndex((l, i) => i < result && isEntry(l));
  const callLine = lines[call] as Record<string, unknown>;
  const messageId = (callLine.message as { id: string }).id;
  const first = lines.find(isPrompt) as Record<string, unknown>;
  const next = crypto.randomUUID();
  const stopped = withFields(lines[result] as Record<string, unknown>, {
    promptId: next,
    message: {
      role: "user",
      content: [{
        type: "tool_result",
        content: "[Request interrupted by user for tool use]",
        is_error: true,
        tool_use_id: (callLine.message as {
          content: { id: string }[];
        }).content[0]?.id,
      }],
    },
    toolUseResult: "Error: [Request interrupted by user for tool use]",
  });
  const marker = withFields(lines[result] as Record<string, unknown>, {
    uuid: crypto.randomUUID(),
    promptId: next,
    message: {
      role: "user",
      content: [{ type: "text", text: "[Request interrupted by user]" }],
    },
    toolUseResult: undefined,
    interruptedMessageId: messageId,
    rowSource: "harness",
  });
  const prompt = withFields(first, {
    uuid: crypto.randomUUID(),
    promptId: next,
    message: { role: "user", content: "no, use the other tool" },
  });
  const kept = [...lines.slice(0, result), stopped, marker, prompt];
  return { lines: kept, marker: result + 2 };
}

Deno.test("grammar: an interrupt marker stamped with the queued next prompt's promptId ends the turn it interrupted (2.1.x, real lines)", async () => {
  const { lines, marker } = interruptedByNextPrompt();
  const turns = await historyOf(lines);
  assert.equal(turns.length, 2);
  assert.ok(turns[0]?.lines.includes(marker), "the marker is the first turn's");
  assert.ok(turns[0]?.lines.includes(marker - 1), "so is the stopped result");
  assert.deepEqual(turns[1]?.lines, []);
  assert.deepEqual(turns.map((t) => t.verdict.signatures), [[], []]);
  assert.equal(turns[0]?.ending, "ended");
  // The hook at the interrupted turn's end (no Stop fires on an interrupt,
  // but a reader of that moment) and at the new prompt agree.
  const cut = await hookTurnOf(lines.slice(0, marker));
  assert.deepEqual(cut.lines, turns[0]?.lines);
  assert.deepEqual(cut.signatures, []);
  assert.deepEqual((await hookTurnOf(lines)).lines, []);
});

/** Real 2.1.332 lines whose echo call is a Bash command the user interrupted. */
function interruptedShell(output: string, isError: boolean): Line[] {
  const lines = realLines("real_custom_command_turn_2.1.332.jsonl");
  const result = lines.findIndex(isResult);
  const call = lines.findLastIndex((l, i) => i < result && isEntry(l));
  const callLine = lines[call] as Record<string, unknown>;
  const message = callLine.message as { content: Record<string, unknown>[] };
  const id = message.content[0]?.id as string;
  const bash = withFields(callLine, {
    message: {
      ...message,
      content: [{
        type: "tool_use",
        id,
        name: "Bash",
        input: { command: "docker exec app php artisan migrate" },
      }],
    },
  });
  const text = `Exit code 137\n[Request interrupted by user for tool use]`;
  const stopped = withFields(lines[result] as Record<string, unknown>, {
    message: {
      role: "user",
      content: [{
        type: "tool_result",
        content: text,
        ...(isError ? { is_error: true } : {}),
        tool_use_id: id,
      }],
    },
    toolUseResult: isError
      ? `Error: ${text}${output}`
      : { stdout: output, stderr: "", interrupted: false },
  });
  return [...lines.slice(0, call), bash, stopped];
}

Deno.test("grammar: a shell command the user interrupted (its error: 'Exit code 137', then the interrupt marker) is the user's stop, on a line parsed or sniffed, in the audit and the hook", async () => {
  for (const size of [0, 6_000, 120_000]) {
    const output = "\nmigrating: " + "x".repeat(size);
    const lines = interruptedShell(output, true);
    const [turn] = await historyOf(lines);
    assert.deepEqual(turn?.verdict.signatures, [], `${size}`);
    assert.deepEqual((await hookTurnOf(lines)).signatures, [], `${size}`);
  }
});

Deno.test("grammar: a result that is no error says nothing of the user, whatever its text: an output that starts with the interrupt marker, parsed or sniffed, is no stop (issue 41, 5)", async () => {
  for (const size of [0, 6_000, 120_000]) {
    const output = "[Request interrupted by user for tool use]\n" +
      "y".repeat(size);
    const lines = interruptedShell(output, false).map((l) =>
      isResult(l)
        ? withFields(l, {
          message: {
            role: "user",
            content: [{
              type: "tool_result",
              content: output,
              tool_use_id: (l.message as {
                content: { tool_use_id: string }[];
              }).content[0]?.tool_use_id,
            }],
          },
        })
        : l
    );
    const [turn] = await historyOf(lines);
    assert.deepEqual(
      turn?.verdict.signatures.map((s) => s.kind),
      ["missing_followup"],
      `${size}`,
    );
    const hook = await hookTurnOf(lines);
    assert.deepEqual(
      hook.signatures.map((s) => s.split(" ")[0]),
      ["missing_followup"],
      `${size}`,
    );
  }
});

/**
 * A subagent's own file as real 2.1.332 wrote it (the tier's
 * `subagent_empty_mcp_result_rewritten.jsonl`, its call answered), whose
 * parent took a new promptId (a task notification, a typed prompt) while
 * the subagent worked: Claude Code stamps the session's current promptId
 * on every user entry, the subagent's result too.
 */
function subagentAcrossParentPrompts(): Line[] {
  const text = Deno.readTextFileSync(
    resolve(FIXTURES_DIR, "subagent_empty_mcp_result_rewritten.jsonl"),
  );
  const lines: Line[] = text.split("\n").filter((l) => l !== "").map((l) =>
    JSON.parse(l)
  );
  const result = lines.findIndex(isResult);
  const reply = lines.findLast((l) => isEntry(l, "assistant")) as Record<
    string,
    unknown
  >;
  const parents = withFields(lines[result] as Record<string, unknown>, {
    promptId: crypto.randomUUID(),
    message: {
      role: "user",
      content: [{
        tool_use_id:
          (lines[result] as { message: { content: [{ tool_use_id: string }] } })
            .message.content[0].tool_use_id,
        type: "tool_result",
        content: [{ type: "text", text: "3 rows" }],
      }],
    },
  });
  const done = withFields(reply, {
    uuid: crypto.randomUUID(),
    message: {
      ...(reply.message as Record<string, unknown>),
      content: [{ type: "text", text: "Subagent: the tool returned 3 rows." }],
      stop_reason: "end_turn",
    },
  });
  return [...lines.slice(0, result), parents, done];
}

Deno.test("grammar: in a subagent's own file a result stamped with the parent's new promptId goes on in the subagent's run (real 2.1.332 subagent lines)", async () => {
  const lines = subagentAcrossParentPrompts();
  const turns = await historyOf(lines, { subagent: true });
  assert.equal(turns.length, 1);
  assert.deepEqual(turns[0]?.verdict.signatures, []);
  // The hook at the subagent's end (SubagentStop), and cut after its call.
  const hook = await hookTurnOf(lines, { subagent: true });
  assert.deepEqual(hook.lines, turns[0]?.lines);
  const call = lines.findLastIndex((l) =>
    isEntry(l, "assistant") &&
    JSON.stringify(l).includes('"tool_use"')
  );
  const cut = await historyOf(lines.slice(0, call + 2), { subagent: true });
  assert.equal(cut.length, 1, "the result does not split the run");
});

Deno.test("grammar: a fork's context (the parent's messages Claude Code copies ahead of a subagent's prompt) is no turn of the subagent's (real 2.1.332 subagent lines)", async () => {
  const lines = subagentAcrossParentPrompts();
  const reply = lines.findLast((l) => isEntry(l, "assistant")) as Record<
    string,
    unknown
  >;
  const prompt = lines.find(isPrompt) as Record<string, unknown>;
  const copied = withFields(reply, {
    uuid: crypto.randomUUID(),
    parentUuid: null,
    // The parent's message, made before the fork's prompt.
    timestamp: shiftTime(prompt.timestamp, -1),
    message: {
      ...(reply.message as Record<string, unknown>),
      content: [{
        type: "tool_use",
        id: "toolu_parents",
        name: "Agent",
        input: {},
      }],
      stop_reason: "tool_use",
    },
  });
  const turns = await historyOf([copied, ...lines], { subagent: true });
  assert.deepEqual(turns.map((t) => t.startLine), [2]);
  assert.deepEqual(turns[0]?.verdict.signatures, []);
  // Without a prompt after it, what the file holds is the turn (a file cut).
  const alone = await historyOf([copied], { subagent: true });
  assert.equal(alone.length, 1);
});

/**
 * A background task's notice as 2.1.x writes it (`origin.kind:
 * "task-notification"`, its own promptId), after real 2.1.332 lines.
 */
function taskNotification(
  like: Record<string, unknown>,
): Record<string, unknown> {
  return withFields(like, {
    uuid: crypto.randomUUID(),
    promptId: crypto.randomUUID(),
    origin: { kind: "task-notification" },
    message: {
      role: "user",
      content:
        '<task-notification>\n<task-id>b7e2k9</task-id>\n<status>completed</status>\n<summary>Background command "npm test" completed (exit code 0)</summary>\n</task-notification>',
    },
  });
}

Deno.test("grammar: a background task's notice (its own promptId) opens the turn the model works on; a note of another promptId nobody answers opens none (real 2.1.332 lines)", async () => {
  const lines = realLines("real_custom_command_turn_2.1.332.jsonl");
  const [command] = linesWhere(lines, isCommandLine);
  const firstTurn = lines.slice(0, (command as number) - 1);
  const first = lines.find(isPrompt) as Record<string, unknown>;
  const reply = firstTurn.findLast((l) => isEntry(l, "assistant")) as Record<
    string,
    unknown
  >;
  const notice = taskNotification(first);
  const answer = withFields(reply, { uuid: crypto.randomUUID() });
  const woken = await historyOf([...firstTurn, notice, answer]);
  assert.deepEqual(woken.map((t) => t.startLine), [3, firstTurn.length + 1]);
  // /context's output for the model (isMeta, its own promptId), then the
  // next prompt: no query came on it.
  const output = withFields(first, {
    uuid: crypto.randomUUID(),
    promptId: crypto.randomUUID(),
    isMeta: true,
    message: { role: "user", content: "## Context Usage\n\n**Tokens:** 20.3k" },
  });
  const prompt = withFields(first, {
    uuid: crypto.randomUUID(),
    promptId: crypto.randomUUID(),
  });
  const quiet = await historyOf([...firstTurn, output, prompt]);
  assert.deepEqual(quiet.map((t) => t.startLine), [3, firstTurn.length + 2]);
  assert.ok(quiet[0]?.lines.includes(firstTurn.length + 1));
});
