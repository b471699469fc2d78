/**
 * The one turn rule on shapes rebuilt from real Claude Code captures: the
 * hook's backward reader, the audit's forward splitter and the verdicts
 * they give agree with what the client did, release quirk by release quirk.
 */

import assert from "node:assert/strict";
import { resolve } from "node:path";
import { scanCurrentTurn } from "../../src/transcript/tail_scan.ts";
import { openerPending } from "../../src/transcript/turn_rule.ts";
import { FIXTURES_DIR } from "../support/cases.ts";
import { forwardTurns } from "../support/forward_turns.ts";
import {
  compaction,
  isEntry,
  isPrompt,
  isResult,
  type Line,
  realLines,
  shiftTime,
  transcriptText,
  withFields,
  withText,
} from "../support/real_lines.ts";
import { tempTranscript } from "../support/temp_project.ts";
import { historyOf, hookTurnOf } from "../support/turn_views.ts";

const TURN = { promptId: null, includeSidechains: false };

/** 1-based numbers of the lines that `keep` holds. */
function linesWhere(lines: readonly Line[], keep: (l: Line) => boolean) {
  return lines.flatMap((l, i) => keep(l) ? [i + 1] : []);
}

Deno.test("a slash command the user types opens its turn once its expansion follows (real 2.0.76 and 2.1.332)", async () => {
  for (const release of ["2.0.76", "2.1.332"]) {
    const lines = realLines(`real_custom_command_turn_${release}.jsonl`);
    const command = linesWhere(lines, (l) =>
      isEntry(l, "user") &&
      JSON.stringify(l.message).includes("<command-message>"))[0] as number;
    const turns = await historyOf(lines);
    assert.equal(turns.length, 2, release);
    assert.equal(turns[1]?.startLine, command, release);
    assert.ok(turns[1]?.lines.every((n) => n > command), release);
    // The hook judges the command's turn alone.
    const hook = await hookTurnOf(lines);
    assert.deepEqual(hook.lines, turns[1]?.lines, release);
    assert.deepEqual(hook.signatures, [], release);
    // A local command (its output where the expansion was) that queries
    // nothing opens nothing: the turn before goes on through it, whatever
    // promptId 2.1.x stamps on it. One the model then answers (as
    // `/doctor` hands the model work) opens its turn.
    const local = lines.map((l, i) =>
      i === command && isEntry(l) // the expansion, right after the command
        ? withFields(l, {
          isMeta: undefined,
          message: {
            role: "user",
            content:
              "<local-command-stdout>Set model to opus</local-command-stdout>",
          },
        })
        : l
    );
    const queried = await historyOf(local);
    assert.equal(queried.length, 2, release);
    assert.equal(queried[1]?.startLine, command, release);
    // Quiet: the next prompt comes first.
    const first = lines.find(isPrompt) as Record<string, unknown>;
    const next = withFields(first, {
      uuid: crypto.randomUUID(),
      ...(first.promptId ? { promptId: crypto.randomUUID() } : {}),
    });
    const quiet = [...local.slice(0, command + 1), next];
    const merged = await historyOf(quiet);
    assert.equal(merged.length, 2, release);
    assert.equal(merged[1]?.startLine, command + 2, release);
    assert.ok(merged[0]?.lines.includes(command + 1), release);
  }
});

Deno.test("prompts sharing one promptId are separate turns (real 2.1.332, stamped as VS Code did)", async () => {
  const lines = realLines("real_custom_command_turn_2.1.332.jsonl");
  const ids = new Set(
    lines.filter((l) => isEntry(l)).map((l) =>
      (l as Record<string, unknown>).promptId
    )
      .filter((id) => id),
  );
  assert.equal(ids.size, 2, "the capture has two prompts' ids");
  const [first] = ids;
  const shared = lines.map((l) =>
    isEntry(l) && l.promptId ? withFields(l, { promptId: first }) : l
  );
  assert.equal((await historyOf(shared)).length, 2);
});

/**
 * A real 2.1.47 file whose prompt line landed after its call and result,
 * behind an earlier turn taken from the same capture.
 */
function latePromptFile(): Line[] {
  const late = realLines("real_prompt_line_after_result_2.1.47.jsonl");
  const prompt = late.find(isPrompt) as Record<string, unknown>;
  // The turn before: the same prompt and an answer, made a minute earlier.
  const earlier = (line: Line, text?: string) =>
    isEntry(line)
      ? withFields(text ? withText(line, text) : line, {
        timestamp: shiftTime(line.timestamp, -60_000),
        uuid: crypto.randomUUID(),
      })
      : line;
  const answer = late.find((l) => isEntry(l, "assistant")) as Line;
  return [earlier(prompt), earlier(answer, "Done."), ...late];
}

Deno.test("the entries a late prompt line came after are its turn's (real 2.1.47), in the hook and the audit alike", async () => {
  const lines = latePromptFile();
  const turns = await historyOf(lines);
  // Written as: text and call, result, then the prompt line.
  const late = linesWhere(lines, (l) => isEntry(l) && !isPrompt(l)).slice(1);
  const result = late.at(-1) as number;
  assert.equal(late.length, 3);
  assert.deepEqual(turns.map((t) => t.lines), [[2], late]);
  const hook = await hookTurnOf(lines);
  assert.deepEqual(hook.lines, late);
  // Stop fired after a silent reply: the result was never answered.
  assert.deepEqual(hook.signatures, [`missing_followup ${result}`]);
});

Deno.test("a resumed 1.0.x session's rewritten times pull nothing across a prompt line", async () => {
  // On resume 1.0.x wrote assistant and result entries again, stamped with
  // the resume time (and, when updated meanwhile, its own release), while
  // prompts kept theirs: every answer looks made after every later prompt.
  const base = latePromptFile();
  const prompt = base.findLast(isPrompt) as Record<string, unknown>;
  const resumedAt = shiftTime(prompt.timestamp, 3_600_000);
  // A local command's output, which keeps its time, stands behind the
  // first answer: the run behind the second prompt looks closed, so only
  // the release of the prompt's line tells it from a late prompt line.
  const first = base[0] as Record<string, unknown>;
  const localOutput = withFields(first, {
    message: {
      role: "user",
      content: "<local-command-stdout>(no content)</local-command-stdout>",
    },
    timestamp: shiftTime(first.timestamp, 1_000),
    uuid: crypto.randomUUID(),
  });
  const inOrder = [
    first,
    localOutput,
    base[1],
    prompt,
    ...base.slice(2).filter((l) => l !== prompt),
  ] as Line[];
  for (const release of [["1.0.77", "1.0.80"], ["1.0.53", "1.0.53"]]) {
    const [promptRelease, rewriter] = release as [string, string];
    const lines = inOrder.map((l) => {
      if (isPrompt(l)) return withFields(l, { version: promptRelease });
      if (!isEntry(l, "assistant") && !isResult(l)) return l;
      return withFields(l, { version: rewriter, timestamp: resumedAt });
    });
    // Both turns answered in order: nothing of the first moves to the second.
    const turns = await historyOf(lines);
    assert.deepEqual(turns.map((t) => t.lines.length), [2, 3], rewriter);
    assert.deepEqual(
      turns.map((t) => t.verdict.signatures.length),
      [0, 1],
      rewriter,
    );
    // The hook, stopping after the first turn, judges it alone.
    const hook = await hookTurnOf(lines.slice(0, 3));
    assert.deepEqual(hook.lines, [2, 3], rewriter);
  }
  // On 2.x too, a run of entries made "after" the prompt that reaches back
  // to the turn before's prompt is no queue delay: nothing is taken.
  const rewritten2x = inOrder.filter((l) => l !== localOutput).map((l, i) =>
    isEntry(l) && !isPrompt(l) && i < 2
      ? withFields(l, { timestamp: resumedAt })
      : l
  );
  const turns = await historyOf(rewritten2x);
  assert.deepEqual(turns.map((t) => t.lines.length), [1, 3]);
});

Deno.test("a compaction inside a turn is no turn boundary: the model carried on after its summary (real 2.1.332 lines)", async () => {
  const lines = realLines("real_custom_command_turn_2.1.332.jsonl");
  const firstResult = lines.findIndex(isResult);
  const compacted = [
    ...lines.slice(0, firstResult + 1),
    ...compaction(lines[firstResult] as Record<string, unknown>),
    ...lines.slice(firstResult + 1),
  ];
  const turns = await historyOf(compacted);
  assert.equal(turns.length, 2, "still the prompt's turn and the command's");
  assert.deepEqual(turns.map((t) => t.verdict.signatures), [[], []]);
  // Cut right after the summary: the result before it is still unanswered.
  const cut = compacted.slice(0, firstResult + 3);
  const open = await historyOf(cut);
  assert.deepEqual(
    open[0]?.verdict.signatures.map((s) => s.kind),
    ["missing_followup"],
  );
  const hook = await hookTurnOf(cut);
  assert.deepEqual(hook.signatures, [`missing_followup ${firstResult + 1}`]);
  // A call left open before the compaction is out of the model's sight.
  const dropped = compacted.filter((_, i) => i !== firstResult);
  const [calling] = await historyOf(dropped);
  assert.deepEqual(calling?.verdict.signatures, []);
  assert.deepEqual(
    (await hookTurnOf(dropped.slice(0, firstResult + 4))).signatures,
    [],
  );
});

Deno.test("a turn that ends on a usage limit is an API-error ending, never a stall (real synthetic entries of 2.0.76 and 2.1.332)", async () => {
  const texts = [
    "Claude AI usage limit reached|1752350400",
    "Session limit reached ∙ resets 10pm",
    "You've hit your session limit · resets 10pm",
    "You’ve hit your weekly limit · resets Oct 6, 4pm",
    "You're out of extra usage · resets 3am",
  ];
  for (
    const capture of [
      "real_api_error_after_tool_result_2.0.76.jsonl",
      "real_api_error_after_tool_result.jsonl",
    ]
  ) {
    const lines = realLines(capture);
    const error = lines.findIndex((l) =>
      isEntry(l, "assistant") && l.isApiErrorMessage === true
    );
    const kept = lines.slice(0, error + 1);
    const general = await historyOf(kept);
    assert.equal(general[0]?.verdict.signatures.length, 1, "an API error");
    for (const text of texts) {
      const limited = kept.map((l, i) =>
        i === error ? withText(l as Record<string, unknown>, text) : l
      );
      const [turn] = await historyOf(limited);
      assert.deepEqual(turn?.verdict.signatures, [], text);
      assert.equal(turn?.verdict.endedOnUsageLimit, true, text);
      assert.equal(turn?.verdict.endedOnApiError, true, text);
      assert.equal(turn?.ending, "ended", text);
      const hook = await hookTurnOf(limited);
      assert.deepEqual(hook.signatures, [], text);
      assert.match(hook.reason, /usage limit/);
    }
  }
});

Deno.test("a complete answer, then a bookkeeping call nobody answered, is no stall; an announcement of more work before it is (real 2.1.332 lines)", async () => {
  const lines = realLines("real_custom_command_turn_2.1.332.jsonl");
  const lead = lines.findIndex((l) =>
    isEntry(l, "assistant") && JSON.stringify(l).includes("Calling mcp__stub")
  );
  const result = lines.findIndex(isResult);
  const turnOf = (text: string) =>
    lines.slice(0, result + 1).map((l, i) =>
      i === lead ? withText(l as Record<string, unknown>, text) : l
    );
  const report = [
    "## Summary",
    "",
    "The echo tool works: it returned the text it was given, unchanged,",
    "in one text block. The configuration needs no change, the stub server",
    "answers within a few milliseconds, and the empty and blank variants",
    "behave as documented in the README of the stub.",
    "",
    "Would you like me to add a test for the blank variant as well?",
  ].join("\n");
  const offer = "Done: the stub answered. Want me to commit this?";
  for (const text of [report, offer]) {
    const [turn] = await historyOf(turnOf(text));
    assert.deepEqual(turn?.verdict.signatures, [], text);
    assert.deepEqual((await hookTurnOf(turnOf(text))).signatures, [], text);
  }
  for (
    const text of [
      "Let me compile the detailed report",
      report.replace(/Would you like.*$/, "Now let me update the task list:"),
      "Checking.",
    ]
  ) {
    const [turn] = await historyOf(turnOf(text));
    assert.deepEqual(
      turn?.verdict.signatures.map((s) => s.kind),
      ["missing_followup"],
      text,
    );
  }
});

Deno.test("a file that ends mid-turn shows no end; one whose process died shows that; a later prompt or a Stop record ends a turn (real 2.1.332)", async () => {
  const whole = realLines("real_no_response_requested_after_killed_turn.jsonl");
  const nrr = whole.findIndex((l) =>
    isEntry(l, "assistant") && JSON.stringify(l).includes("<synthetic>")
  );
  // Captured mid-turn: the model's answer to the result was on its way.
  const [cut] = await historyOf(whole.slice(0, nrr));
  assert.equal(cut?.verdict.signatures[0]?.kind, "missing_followup");
  assert.equal(cut?.ending, "no_end");
  // Killed there, and picked up again with --continue: Claude Code's
  // filler for a conversation that stopped mid-turn says the process died.
  const [killed] = await historyOf(whole.slice(0, nrr + 1));
  assert.equal(killed?.ending, "process_died");
  const [first, second] = await historyOf(whole);
  assert.equal(
    first?.ending,
    "process_died",
    "a later prompt does not hide it",
  );
  assert.equal(second?.ending, "ended", "its stop_hook_summary");
  // A turn answered, then a later prompt: ended.
  const answered = realLines("real_custom_command_turn_2.1.332.jsonl");
  assert.deepEqual(
    (await historyOf(answered)).map((t) => t.ending),
    ["ended", "ended"],
  );
  // Resumed by Claude Code's own prompt: the process had died mid-turn.
  const continueLine = withFields(whole[nrr] as Record<string, unknown>, {
    type: "user",
    isMeta: true,
    message: {
      role: "user",
      content: [{ type: "text", text: "Continue from where you left off." }],
    },
  });
  const died = [...whole.slice(0, nrr), continueLine];
  assert.equal((await historyOf(died))[0]?.ending, "process_died");
});

Deno.test("a crashed call's result Claude Code writes on resume, stamped with the new prompt's promptId ahead of its line, opens the prompt's turn; the crashed turn shows its process died (real 2.1.332)", async () => {
  for (
    const [name, kinds] of [
      ["real_crashed_call_resumed_silent.jsonl", ["missing_followup"]],
      ["real_crashed_call_resumed_answered.jsonl", []],
    ] as const
  ) {
    const lines = realLines(name);
    const repair = linesWhere(lines, (l) => isResult(l)).at(-1) as number;
    const prompt = linesWhere(lines, isPrompt).at(-1) as number;
    assert.ok(repair < prompt, "the repair is written ahead of the prompt");
    const [crashed, resumed] = await historyOf(lines);
    assert.equal(crashed?.ending, "process_died", name);
    assert.equal(resumed?.startLine, prompt, name);
    assert.equal(resumed?.lines[0], repair, name);
    assert.deepEqual(
      resumed?.verdict.signatures.map((s) => s.kind),
      kinds,
      name,
    );
    // The hook reads the same turn, the crashed call taken for its result.
    const hook = await hookTurnOf(lines);
    assert.equal(hook.lines.includes(repair), true, name);
    assert.deepEqual(hook.signatures.map((s) => s.split(" ")[0]), kinds, name);
  }
  // Without the promptId stamp the same lines stay with the crashed turn,
  // and the prompt opens its own.
  const lines = realLines("real_crashed_call_resumed_answered.jsonl");
  const prompt = linesWhere(lines, isPrompt).at(-1) as number;
  const repair = linesWhere(lines, isResult).at(-1) as number;
  const unstamped = lines.map((l) =>
    isResult(l) ? withFields(l, { promptId: undefined }) : l
  );
  const [crashed, resumed] = await historyOf(unstamped);
  assert.ok(crashed?.lines.includes(repair));
  assert.equal(resumed?.startLine, prompt);
  assert.ok(resumed?.lines.every((line) => line > prompt));
});

Deno.test("a WebSearch result is named WebSearch with its own id, whatever server-tool ids its toolUseResult holds (long line, sniffed)", async () => {
  const lines = realLines("real_custom_command_turn_2.1.332.jsonl");
  const call = lines.findIndex((l) =>
    isEntry(l, "assistant") &&
    JSON.stringify(l.message).includes('"type":"tool_use"')
  );
  const result = lines.findIndex(isResult);
  const callLine = lines[call] as Record<string, unknown>;
  const id = (callLine.message as { content: { id: string }[] }).content[0]
    ?.id as string;
  // WebSearch's result: the links as text for the model, and in
  // toolUseResult the server tool's results under the API's own ids.
  const links = Array.from({ length: 60 }, (_, i) => ({
    title: `Result ${i}`,
    url: `https://example.com/docs/page-${i}`,
  }));
  const search = withFields(lines[result] as Record<string, unknown>, {
    message: {
      role: "user",
      content: [{
        tool_use_id: id,
        type: "tool_result",
        content: `Web search results for query: "echo stub"\n\nLinks: ${
          JSON.stringify(links)
        }`,
      }],
    },
    toolUseResult: {
      query: "echo stub",
      results: [
        { tool_use_id: "srvtoolu_01AbCdEfGhIjKlMnOpQrStUv", content: links },
        "A summary of the results.",
      ],
      durationSeconds: 3.2,
    },
  });
  const webCall = withFields(callLine, {
    message: {
      ...(callLine.message as Record<string, unknown>),
      content: [{
        type: "tool_use",
        id,
        name: "WebSearch",
        input: { query: "echo stub" },
      }],
    },
  });
  const file = [...lines.slice(0, call), webCall, search];
  assert.ok(JSON.stringify(search).length > 4096, "sniffed by the audit");
  const [turn] = await historyOf(file);
  assert.deepEqual(
    turn?.verdict.signatures.map((s) => [s.kind, s.toolName, s.toolUseId]),
    [["missing_followup", "WebSearch", id]],
  );
});

Deno.test("openerPending(): no turn of any fixture, in the order the client wrote it, waits for its prompt line (a wrong wait would hold every watcher of such a turn 10 s)", async () => {
  let turns = 0;
  for (const dir of [FIXTURES_DIR, resolve(FIXTURES_DIR, "real")]) {
    for await (const file of Deno.readDir(dir)) {
      if (!file.isFile || !file.name.endsWith(".jsonl")) continue;
      const text = await Deno.readTextFile(resolve(dir, file.name));
      for (const turn of forwardTurns(text)) {
        turns++;
        assert.equal(
          openerPending(turn.entries, turn.opener),
          false,
          `${file.name}: turn at line ${turn.startLine}`,
        );
      }
    }
  }
  assert.ok(turns > 60, `${turns} turns read`);
});

Deno.test("openerPending(): no real capture's current turn, read whole, waits for its prompt line; real 2.1.145's call and result landed ahead of it do", async () => {
  for await (const file of Deno.readDir(resolve(FIXTURES_DIR, "real"))) {
    if (!file.name.endsWith(".jsonl")) continue;
    const scan = await scanCurrentTurn(
      resolve(FIXTURES_DIR, "real", file.name),
      TURN,
    );
    assert.ok(scan, file.name);
    assert.equal(openerPending(scan.entries, scan.opener), false, file.name);
  }
  // The order CI saw: the model's text and call and the echo result first,
  // then the session's metadata, the prompt line and the rest.
  const lines = realLines("real_hook_stopped_prompt_line_late_2.1.145.jsonl");
  const early: Line[] = lines.filter((l) =>
    isEntry(l, "assistant") || isResult(l)
  );
  const rest = lines.filter((l) => !early.includes(l));
  const turnOf = async (text: string) => {
    await using file = await tempTranscript(text);
    const scan = await scanCurrentTurn(file.path, TURN);
    assert.ok(scan);
    return openerPending(scan.entries, scan.opener);
  };
  assert.equal(await turnOf(transcriptText(early)), true);
  assert.equal(await turnOf(transcriptText([...early, ...rest])), false);
  // A prompt of an older turn before them does not open this one.
  const older = realLines("real_hook_stopped_post_tool_use.jsonl");
  assert.equal(await turnOf(transcriptText([...older, ...early])), true);
});
