/**
 * Property-based tests of the turn finder and the classifier over arbitrary
 * entry sequences: docs/detection.md's definitions of a turn and of each stall
 * kind, checked as properties instead of examples.
 *
 * Run longer with `STALL_WATCH_FUZZ_RUNS=5000 deno task test`.
 */

import assert from "node:assert/strict";
import fc from "fast-check";
import { runningBackgroundTasks } from "../../src/detection/background_tasks.ts";
import {
  classifyTurn,
  STALL_KINDS,
  type StallSignature,
} from "../../src/detection/classify.ts";
import type { Entry } from "../../src/transcript/entry.ts";
import { provesFollowUp } from "../../src/detection/_follow_up_proof.ts";
import {
  BackwardTurnCollector,
  ForwardTurnSplitter,
  LOOK_BEHIND_ENTRIES,
} from "../../src/transcript/turn.ts";
import { fuzzParameters } from "../support/fuzz.ts";

// Few ids and names, so calls, results and tasks actually meet.
const toolIds = ["toolu_a", "toolu_b", "toolu_c", "toolu_d"];
const toolNames = [
  "Read",
  "Bash",
  "Agent",
  "mcp__github__create_issue",
  "mcp__plugin_acme_db__query",
  "mcp_lookalike", // one underscore: not an MCP tool
  "",
];

type Shape = Omit<Entry, "offset" | "line">;

// When an entry was made, if it says: random, so that a prompt line often
// comes after entries made later (Claude Code's write queue).
const base = (promptIds: (string | null)[]) =>
  fc.record({
    promptId: fc.constantFrom(...promptIds),
    sidechain: fc.oneof(
      { weight: 5, arbitrary: fc.constant(false) },
      fc.constant(true),
    ),
    time: fc.option(fc.integer({ min: 0, max: 20 }), { nil: undefined }),
  }).map(({ time, ...rest }) => time === undefined ? rest : { ...rest, time });

function shape(promptIds: (string | null)[]): fc.Arbitrary<Shape> {
  const b = base(promptIds);
  return fc.oneof(
    {
      weight: 4,
      arbitrary: fc.record({
        kind: fc.constant("assistant" as const),
        b,
        messageId: fc.constantFrom(null, "msg_1", "msg_2"),
        texts: fc.array(fc.constantFrom("On it.", "Done."), { maxLength: 1 }),
        toolUses: fc.array(
          fc.record({
            id: fc.constantFrom(...toolIds),
            name: fc.constantFrom(...toolNames),
          }),
          { maxLength: 2 },
        ),
      }).map(({ b, ...rest }) => ({ ...b, ...rest })),
    },
    {
      weight: 4,
      arbitrary: fc.record({
        kind: fc.constant("results" as const),
        b,
        results: fc.array(
          fc.record({
            toolUseId: fc.constantFrom(...toolIds),
            empty: fc.boolean(),
            userStopped: fc.oneof(
              { weight: 6, arbitrary: fc.constant(false) },
              fc.constant(true),
            ),
            snippet: fc.constantFrom("", "ok", "moved to background: mcpt_42"),
          }),
          { minLength: 1, maxLength: 2 },
        ),
      }).map(({ b, ...rest }) => ({ ...b, ...rest })),
    },
    ...(["prompt", "note", "interrupt", "boundary"] as const).map((kind) =>
      b.map((x) => ({ kind, ...x }))
    ),
  );
}

/** Entries in file order, with increasing offsets and line numbers. */
function entries(
  promptIds: (string | null)[] = [null],
): fc.Arbitrary<Entry[]> {
  return fc.array(shape(promptIds), { maxLength: 24 }).map((shapes) =>
    shapes.map((s, i) => ({ ...s, offset: i * 100, line: i + 1 }) as Entry)
  );
}

function collect(
  list: readonly Entry[],
  promptId: string | null,
  includeSidechains: boolean,
) {
  const collector = new BackwardTurnCollector({ promptId, includeSidechains });
  for (let i = list.length - 1; i >= 0; i--) {
    if (collector.offer(list[i] as Entry)) break;
  }
  const turn = collector.entries();
  const start = collector.startOffset;
  return {
    turn,
    complete: collector.complete,
    /** The part from where the turn starts (its prompt, a boundary...). */
    fromStart: turn.filter((e) => start === null || e.offset > start),
    /** What was taken from behind the prompt line. */
    behind: turn.filter((e) => start !== null && e.offset < start),
  };
}

Deno.test("BackwardTurnCollector and ForwardTurnSplitter agree on the last turn when entries carry no promptId", () => {
  fc.assert(
    fc.property(entries(), fc.boolean(), (list, includeSidechains) => {
      const splitter = new ForwardTurnSplitter({ includeSidechains });
      for (const entry of list) splitter.push(entry);
      const last = splitter.finish() ?? [];
      // Calls taken from behind the prompt for the turn's results are
      // copies holding those calls only; the splitter, reading forward,
      // leaves them with the turn before.
      const { turn } = collect(list, null, includeSidechains);
      assert.deepEqual(turn.filter((e) => list.includes(e)), last);
    }),
    fuzzParameters(500),
  );
});

Deno.test("BackwardTurnCollector returns a contiguous tail of the eligible entries, cut only at a turn start", () => {
  fc.assert(
    fc.property(
      entries([null, "p1", "p2"]),
      fc.constantFrom(null, "p1", "p2"),
      fc.boolean(),
      (list, promptId, includeSidechains) => {
        const eligible = list.filter((e) => includeSidechains || !e.sidechain);
        const { fromStart: turn, complete } = collect(
          list,
          promptId,
          includeSidechains,
        );
        const cut = eligible.length - turn.length;
        assert.deepEqual(turn, eligible.slice(cut), "a contiguous tail");
        for (const e of turn) {
          assert.notEqual(e.kind, "boundary");
          if (e.kind === "prompt") {
            assert.ok(promptId !== null && e.promptId === promptId);
          }
        }
        if (!complete) {
          assert.equal(cut, 0, "incomplete only when the file ran out");
          return;
        }
        const stop = eligible[cut - 1] as Entry;
        assert.ok(stop, "a complete turn was cut by an entry");
        const foreign = stop.promptId !== null && stop.promptId !== promptId;
        assert.ok(
          stop.kind === "boundary" ||
            (stop.promptId !== promptId || promptId === null) &&
              (stop.kind === "prompt" || foreign),
          `cut by ${stop.kind} (${stop.promptId})`,
        );
      },
    ),
    fuzzParameters(500),
  );
});

Deno.test("BackwardTurnCollector takes from behind a prompt line only entries made after it, or the calls its results answer", () => {
  fc.assert(
    fc.property(entries(), fc.boolean(), (list, includeSidechains) => {
      const { turn, behind, fromStart, complete } = collect(
        list,
        null,
        includeSidechains,
      );
      if (behind.length === 0) return;
      const at = list.findIndex((e) => e.offset === behind[0]?.offset);
      const promptAt = list.findLastIndex((e, i) =>
        i > at && e.kind === "prompt" && (includeSidechains || !e.sidechain)
      );
      const prompt = list[promptAt] as Entry;
      assert.ok(complete && prompt.kind === "prompt");
      assert.ok(promptAt - at <= LOOK_BEHIND_ENTRIES, "within reach");
      assert.deepEqual(turn, [...behind, ...fromStart], "they lead the turn");
      const between = list.slice(at, promptAt).filter((e) =>
        includeSidechains || !e.sidechain
      );
      assert.ok(
        between.every((e) => e.kind !== "prompt" && e.kind !== "boundary"),
      );
      const answered = new Set(
        turn.flatMap((e) =>
          e.kind === "results" ? e.results.map((r) => r.toolUseId) : []
        ),
      );
      for (const e of behind) {
        if (list.includes(e)) {
          // Whole: made after the prompt, as is all between it and the prompt.
          const i = list.indexOf(e);
          for (const later of list.slice(i, promptAt)) {
            if (later.sidechain && !includeSidechains) continue;
            assert.ok(
              later.time !== undefined && prompt.time !== undefined &&
                later.time > prompt.time,
              "made after the prompt",
            );
          }
        } else {
          // A copy of an older line, holding only calls the turn answers.
          assert.ok(e.kind === "assistant" && e.texts.length === 0);
          assert.ok(e.toolUses.length > 0);
          assert.ok(e.toolUses.every((u) => answered.has(u.id)));
        }
      }
    }),
    fuzzParameters(500),
  );
});

/** docs/detection.md's definition of each kind, checked against a verdict. */
function assertSignaturesFollowTheRules(
  turn: readonly Entry[],
  signatures: readonly StallSignature[],
): void {
  const uses = new Map<string, string>();
  const resultsById = new Map<string, boolean>(); // first result's emptiness
  for (const e of turn) {
    if (e.kind === "assistant") {
      for (const u of e.toolUses) if (!uses.has(u.id)) uses.set(u.id, u.name);
    }
    if (e.kind === "results") {
      for (const r of e.results) {
        if (!resultsById.has(r.toolUseId)) {
          resultsById.set(r.toolUseId, r.empty);
        }
      }
    }
  }
  let previous = -1;
  for (const s of signatures) {
    assert.ok(STALL_KINDS.includes(s.kind));
    assert.ok(s.offset >= previous, "sorted by offset");
    previous = s.offset;
    assert.ok(turn.some((e) => e.offset === s.offset), "points at an entry");
    switch (s.kind) {
      case "pending_tool_use":
      case "hung_mcp_call":
        assert.ok(uses.has(s.toolUseId), "a call of this turn");
        assert.ok(!resultsById.has(s.toolUseId), "that has no result");
        assert.equal(s.toolName, uses.get(s.toolUseId));
        assert.equal(
          s.kind === "hung_mcp_call",
          s.toolName.startsWith("mcp__"),
        );
        break;
      case "empty_tool_result":
        assert.equal(resultsById.get(s.toolUseId), true, "an empty result");
        break;
      case "missing_followup":
        assert.equal(signatures.length, 1, "only when nothing else fired");
        assert.ok(resultsById.has(s.toolUseId));
        assert.ok([...uses.keys()].every((id) => resultsById.has(id)));
        break;
    }
  }
}

Deno.test("classifyTurn() only reports stalls that match docs/detection.md's definitions", () => {
  fc.assert(
    fc.property(entries([null, "p1"]), (turn) => {
      const verdict = classifyTurn(turn, { backgroundTasks: [] });
      assert.deepEqual(classifyTurn(turn, { backgroundTasks: [] }), verdict);
      assert.ok(verdict.reason !== "");
      assertSignaturesFollowTheRules(turn, verdict.signatures);
      const lastActivity = turn.findLastIndex((e) =>
        e.kind === "assistant" && (e.texts.length > 0 || e.toolUses.length > 0)
      );
      const lastInterrupt = turn.findLastIndex((e) => e.kind === "interrupt");
      if (lastInterrupt > lastActivity) {
        assert.deepEqual(verdict.signatures, [], "the user interrupted");
      }
    }),
    fuzzParameters(1000),
  );
});

Deno.test("classifyTurn(): a final text clears empty and missing follow-up stalls but never hides an unanswered call", () => {
  fc.assert(
    fc.property(entries(), (turn) => {
      const answered: Entry[] = [...turn, {
        kind: "assistant",
        offset: turn.length * 100,
        line: turn.length + 1,
        promptId: null,
        sidechain: false,
        messageId: "msg_final",
        texts: ["Here is what I found."],
        toolUses: [],
      }];
      const before = classifyTurn(turn, { backgroundTasks: [] }).signatures;
      const after = classifyTurn(answered, { backgroundTasks: [] }).signatures;
      const answeredIds = new Set(
        turn.flatMap((e) =>
          e.kind === "results" ? e.results.map((r) => r.toolUseId) : []
        ),
      );
      const open = new Set(
        turn.flatMap((e) => e.kind === "assistant" ? e.toolUses : [])
          .map((u) => u.id).filter((id) => !answeredIds.has(id)),
      );
      const unanswered = (list: readonly StallSignature[]) =>
        list.filter((s) =>
          s.kind === "pending_tool_use" || s.kind === "hung_mcp_call"
        ).map((s) => s.toolUseId).sort();
      assert.deepEqual(unanswered(after), [...open].sort());
      assert.equal(after.length, open.size, "only unanswered calls remain");
      for (const id of unanswered(before)) assert.ok(open.has(id));
    }),
    fuzzParameters(1000),
  );
});

Deno.test("classifyTurn(): running background work only ever removes signatures", () => {
  const task = fc.record({
    id: fc.constantFrom(...toolIds, "mcpt_42", "b7e2k9", ""),
    type: fc.constantFrom("shell", "subagent", "MCP task", "monitor"),
    status: fc.constantFrom("running", "completed", "pending", ""),
    server: fc.constantFrom("", "github", "db"),
    tool: fc.constantFrom("", "create_issue", "query"),
  });
  fc.assert(
    fc.property(entries(), fc.array(task, { maxLength: 3 }), (turn, raw) => {
      const tasks = runningBackgroundTasks(raw);
      const alone = classifyTurn(turn, { backgroundTasks: [] }).signatures;
      const withTasks = classifyTurn(turn, { backgroundTasks: tasks })
        .signatures;
      const key = (s: StallSignature) => `${s.kind} ${s.toolUseId} ${s.offset}`;
      const without = new Set(alone.map(key));
      for (const s of withTasks) assert.ok(without.has(key(s)));
      for (const t of tasks) {
        assert.ok(
          !withTasks.some((s) => t.id !== "" && s.toolUseId === t.id),
          "a call whose id names running work is not a stall",
        );
      }
    }),
    fuzzParameters(1000),
  );
});

Deno.test("runningBackgroundTasks() and provesFollowUp() accept any value without throwing", () => {
  fc.assert(
    fc.property(
      fc.anything({ maxDepth: 3 }),
      fc.option(fc.string({ unit: "binary" }), { nil: null }),
      entries(),
      (value, message, turn) => {
        const tasks = runningBackgroundTasks(value);
        for (const t of tasks) {
          for (const field of Object.values(t)) {
            assert.equal(typeof field, "string");
          }
        }
        const proved = provesFollowUp(message, turn);
        assert.equal(typeof proved, "boolean");
        if (message === null || message.trim() === "") {
          assert.equal(proved, false);
        }
        // Text the transcript already holds proves nothing.
        for (const e of turn) {
          if (e.kind !== "assistant") continue;
          for (const text of e.texts) {
            assert.equal(provesFollowUp(`  ${text}\n`, turn), false);
          }
        }
      },
    ),
    fuzzParameters(500),
  );
});
