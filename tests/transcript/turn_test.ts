import assert from "node:assert/strict";
import type { Entry } from "../../src/transcript/entry.ts";
import {
  ForwardTurnSplitter,
  type SplitTurn,
} from "../../src/transcript/turn.ts";
import { LOOK_BEHIND_ENTRIES } from "../../src/transcript/turn_rule.ts";
import { BackwardTurnCollector } from "../../src/transcript/_backward_turn.ts";

let offset = 0;
function entry(
  kind: Entry["kind"],
  promptId: string | null = null,
  sidechain = false,
): Entry {
  const base = { offset: offset += 10, line: 0, promptId, sidechain };
  if (kind === "assistant") {
    return { kind, ...base, messageId: null, texts: ["t"], toolUses: [] };
  }
  if (kind === "results") return { kind, ...base, results: [] };
  return { kind, ...base } as Entry;
}

/** Offers `entries` (file order) newest first; returns the collected turn's offsets. */
function collect(
  entries: Entry[],
  promptId: string | null = null,
  includeSidechains = false,
) {
  const collector = new BackwardTurnCollector({ promptId, includeSidechains });
  for (const e of entries.toReversed()) if (collector.offer(e)) break;
  return {
    offsets: collector.entries().map((e) => e.offset),
    complete: collector.complete,
  };
}

/** The offsets `collect` takes from behind the turn's (last) prompt. */
function behindOf(entries: Entry[]): number[] {
  const behind = entries.slice(
    0,
    entries.findLastIndex((e) => e.kind === "prompt"),
  ).map((e) => e.offset);
  return collect(entries).offsets.filter((o) => behind.includes(o));
}

/** `e` stamped as made at `time` (ms). */
function at<E extends Entry>(time: number, e: E): E {
  return { ...e, time };
}

Deno.test("BackwardTurnCollector stops at the last human prompt", () => {
  const old = [entry("prompt"), entry("assistant")];
  const turn = [entry("assistant"), entry("note"), entry("results")];
  const got = collect([...old, entry("prompt"), ...turn]);
  assert.deepEqual(got, { offsets: turn.map((e) => e.offset), complete: true });
});

Deno.test("BackwardTurnCollector stops at a compaction only once the model acted after it", () => {
  // The model answered after the summary: nothing before can change the verdict.
  const boundary = entry("boundary");
  const after = [entry("note"), entry("assistant")];
  assert.deepEqual(
    collect([entry("prompt"), entry("assistant"), boundary, ...after]),
    { offsets: [boundary, ...after].map((e) => e.offset), complete: true },
  );
  // Nothing of the model's after it: the turn goes on back to its prompt.
  const turn = [entry("assistant"), entry("results"), entry("boundary")];
  const summary = { ...entry("note"), source: "compaction" } as Entry;
  assert.deepEqual(
    collect([entry("prompt"), ...turn, summary]),
    { offsets: [...turn, summary].map((e) => e.offset), complete: true },
  );
});

Deno.test("BackwardTurnCollector skips sidechain entries only in a main transcript", () => {
  const side = entry("prompt", null, true);
  const main = entry("assistant");
  assert.deepEqual(collect([entry("prompt"), main, side]).offsets, [
    main.offset,
  ]);
  assert.deepEqual(
    collect(
      [entry("prompt", null, true), main, entry("assistant", null, true)],
      null,
      true,
    ).offsets.length,
    2,
  );
});

Deno.test("BackwardTurnCollector starts the turn at its prompt even when prompts share a promptId, or at an entry of another promptId", () => {
  // VS Code stamped several prompts with one promptId: each is a turn.
  const ours = [entry("assistant", "p2"), entry("results", "p2")];
  const got = collect([
    entry("prompt", "p2"),
    entry("assistant", "p2"),
    entry("prompt", "p2"),
    ...ours,
  ], "p2");
  assert.deepEqual(got, { offsets: ours.map((e) => e.offset), complete: true });
  // A wake-up with its own promptId opens a turn without a prompt; the
  // entries without one before it are the turn before's.
  const wake = [
    entry("note", "p3"),
    entry("assistant"),
    entry("results", "p3"),
  ];
  assert.deepEqual(
    collect([
      entry("prompt", "p2"),
      entry("results", "p2"),
      entry("assistant"),
      ...wake,
    ]),
    { offsets: wake.map((e) => e.offset), complete: true },
  );
  // Entries without promptId (older versions) fall back to prompt detection.
  const legacy = [entry("assistant"), entry("results")];
  assert.deepEqual(
    collect([entry("prompt"), ...legacy], "p2").offsets,
    legacy.map((e) => e.offset),
  );
});

Deno.test("BackwardTurnCollector reports an incomplete turn when the file starts mid-turn", () => {
  assert.deepEqual(
    collect([entry("assistant"), entry("results")]).complete,
    false,
  );
});

Deno.test("ForwardTurnSplitter yields each turn between prompts and inputs the client answered, a compaction going on in its turn", () => {
  const splitter = new ForwardTurnSplitter({ includeSidechains: false });
  const stream = [
    entry("note"),
    entry("prompt", "a"),
    entry("assistant", "a"),
    entry("assistant", null, true),
    entry("boundary", "a"),
    entry("note", "a"),
    entry("prompt", "b"),
    entry("results", "b"),
    // A result stamped with a new promptId answers a call made before it.
    entry("results", "c"),
    // A wake-up of its own promptId that the client answered.
    entry("note", "d"),
    entry("assistant"),
  ];
  const turns: number[][] = [];
  for (const e of stream) {
    for (const closed of splitter.push(e)) {
      turns.push(closed.entries.map((x) => x.offset));
    }
  }
  for (const closed of splitter.finish()) {
    turns.push(closed.entries.map((x) => x.offset));
  }
  // The note before the first prompt is a session's preamble, no turn.
  const o = (i: number) => (stream[i] as Entry).offset;
  assert.deepEqual(turns, [[o(2), o(4), o(5)], [o(7), o(8)], [o(9), o(10)]]);
});

/** An assistant entry calling `ids`, and a results entry answering them. */
function calls(...ids: string[]): Entry {
  return {
    ...entry("assistant"),
    toolUses: ids.map((id) => ({ id, name: `tool_${id}` })),
  } as Entry;
}
function answers(...ids: string[]): Entry {
  return {
    ...entry("results"),
    results: ids.map((toolUseId) => ({
      toolUseId,
      empty: false,
      userStopped: false,
      snippet: "",
    })),
  } as Entry;
}

Deno.test("BackwardTurnCollector takes the call behind the prompt that a result of the turn answers (2.1.145 writes the prompt line late)", () => {
  const older = [entry("prompt"), calls("old"), answers("old")];
  const behind = calls("a", "elsewhere");
  const prompt = entry("prompt");
  const turn = [entry("note"), answers("a")];
  const collector = new BackwardTurnCollector({
    promptId: null,
    includeSidechains: false,
  });
  let done = false;
  for (const e of [...older, behind, prompt, ...turn].toReversed()) {
    if ((done = collector.offer(e))) break;
  }
  assert.ok(done && collector.complete);
  // The turn still starts at its prompt, led by the call found behind it.
  assert.equal(collector.startOffset, prompt.offset);
  const [first, ...rest] = collector.entries();
  assert.deepEqual(rest.map((e) => e.offset), turn.map((e) => e.offset));
  // Only the answered call: "elsewhere" is the turn before's, not pending here.
  assert.deepEqual(
    first?.kind === "assistant" ? first.toolUses.map((u) => u.id) : null,
    ["a"],
  );
  assert.equal(first?.offset, behind.offset);
});

Deno.test("BackwardTurnCollector takes the entries behind a late prompt line that were made after it (2.1.47 under load)", () => {
  // The file as 2.1.47 wrote it: the call, its result, then the prompt.
  const older = [at(1_000, entry("prompt")), at(1_100, entry("assistant"))];
  const call = at(5_200, calls("a"));
  const result = at(5_300, answers("a"));
  const prompt = at(5_000, entry("prompt"));
  const got = collect([...older, call, result, prompt]);
  assert.deepEqual(got, {
    offsets: [call.offset, result.offset],
    complete: true,
  });
  // Whole entries: a text and a second call made after the prompt count.
  const file = [
    ...older,
    at(5_100, calls("b")),
    at(5_200, calls("c")),
    at(5_300, answers("c")),
    at(5_000, entry("prompt")),
    at(5_400, entry("note")),
  ];
  assert.deepEqual(
    behindOf(file),
    file.slice(2, 5).map((e) => e.offset),
  );
});

Deno.test("BackwardTurnCollector takes nothing made before the prompt, nor anything behind it", () => {
  const prompt = at(5_000, entry("prompt"));
  // The usual file: the turn before ended before the prompt was made.
  assert.deepEqual(
    behindOf([at(4_000, calls("x")), at(4_500, answers("x")), prompt]),
    [],
  );
  // Made in the same millisecond: not after it.
  assert.deepEqual(behindOf([at(5_000, entry("assistant")), prompt]), []);
  // An older entry ends the run: a newer one behind it is not taken.
  assert.deepEqual(
    behindOf([at(5_900, entry("assistant")), at(4_000, entry("note")), prompt]),
    [],
  );
  // Without a time (a sniffed line, an old release) nothing is taken.
  assert.deepEqual(behindOf([entry("assistant"), prompt]), []);
  assert.deepEqual(
    behindOf([at(5_900, entry("assistant")), entry("prompt")]),
    [],
  );
  // Nor behind another prompt or a compaction.
  for (const cut of [at(4_000, entry("prompt")), entry("boundary")]) {
    assert.deepEqual(
      behindOf([at(5_900, entry("assistant")), cut, prompt]),
      [],
    );
  }
  // A run longer than LOOK_BEHIND_ENTRIES is no queue delay: none of it.
  const many = Array.from(
    { length: LOOK_BEHIND_ENTRIES + 2 },
    (_, i) => at(6_000 + i, entry("note")),
  );
  assert.deepEqual(
    behindOf([at(1_000, entry("note")), ...many, at(5_000, entry("prompt"))]),
    [],
  );
  const far = at(6_000, entry("assistant"));
  const sidechains = Array.from(
    { length: LOOK_BEHIND_ENTRIES },
    () => at(6_000, entry("assistant", null, true)),
  );
  assert.deepEqual(
    behindOf([far, ...sidechains, at(5_000, entry("prompt"))]),
    [],
  );
});

Deno.test("BackwardTurnCollector still finds an answered call behind the entries made after the prompt", () => {
  // The call's line was sniffed (no time); its result was made after the prompt.
  const call = calls("big");
  const result = at(5_300, answers("big"));
  const got = collect([
    entry("prompt"),
    call,
    result,
    at(5_000, entry("prompt")),
  ]);
  assert.deepEqual(got.offsets, [call.offset, result.offset]);
});

Deno.test("BackwardTurnCollector looks behind the prompt only for unanswered ids, and not past another prompt or a few entries", () => {
  // Every result's call is in the turn: nothing behind the prompt is read.
  const whole = [calls("x"), entry("prompt"), calls("y"), answers("y")];
  assert.deepEqual(behindOf(whole), []);
  // The call stands behind an older prompt: it is that turn's.
  const past = [calls("z"), entry("prompt"), entry("prompt"), answers("z")];
  assert.deepEqual(behindOf(past), []);
  // Too far behind: more than LOOK_BEHIND_ENTRIES entries in between.
  const far = [
    calls("w"),
    ...Array.from({ length: LOOK_BEHIND_ENTRIES }, () => entry("note")),
    entry("prompt"),
    answers("w"),
  ];
  assert.deepEqual(behindOf(far), []);
  // Within reach it is found.
  const near = [calls("v"), entry("note"), entry("prompt"), answers("v")];
  assert.deepEqual(behindOf(near), [near[0]!.offset]);
});

Deno.test("ForwardTurnSplitter lets go of a turn past maxTurnEntries (tool blocks weighed) and marks it, the turns around it whole", () => {
  const splitter = new ForwardTurnSplitter({
    includeSidechains: false,
    maxTurnEntries: 10,
  });
  const turns: { entries: number; over: boolean }[] = [];
  const take = (closed: SplitTurn[]) => {
    for (const turn of closed) {
      turns.push({
        entries: turn.entries.length,
        over: turn.overBudget === true,
      });
    }
  };
  take(splitter.push(entry("prompt", "a")));
  for (let i = 0; i < 9; i++) take(splitter.push(entry("assistant", "a")));
  take(splitter.push(entry("prompt", "b")));
  // Four calls and their four results weigh 10 with their entries: one more is over.
  take(splitter.push(calls("1", "2", "3", "4")));
  take(splitter.push(answers("1", "2", "3", "4")));
  for (let i = 0; i < 100_000; i++) take(splitter.push(entry("assistant")));
  take(splitter.push(entry("prompt", "c")));
  take(splitter.push(entry("assistant", "c")));
  take(splitter.finish());
  assert.deepEqual(turns, [
    { entries: 9, over: false },
    { entries: 0, over: true },
    { entries: 1, over: false },
  ]);
});
