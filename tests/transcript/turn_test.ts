import assert from "node:assert/strict";
import type { Entry } from "../../src/transcript/entry.ts";
import {
  BackwardTurnCollector,
  ForwardTurnSplitter,
  LOOK_BEHIND_ENTRIES,
} from "../../src/transcript/turn.ts";

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

/** The offsets of the calls `collect` would find behind the turn's prompt. */
function behindOf(entries: Entry[]): number[] {
  const collector = new BackwardTurnCollector({
    promptId: null,
    includeSidechains: false,
  });
  for (const e of entries.toReversed()) if (collector.offer(e)) break;
  return collector.callsBehind().map((e) => e.offset);
}

Deno.test("BackwardTurnCollector stops at the last human prompt", () => {
  const old = [entry("prompt"), entry("assistant")];
  const turn = [entry("assistant"), entry("note"), entry("results")];
  const got = collect([...old, entry("prompt"), ...turn]);
  assert.deepEqual(got, { offsets: turn.map((e) => e.offset), complete: true });
});

Deno.test("BackwardTurnCollector stops at a compact boundary", () => {
  const turn = [entry("note"), entry("assistant")];
  assert.deepEqual(
    collect([entry("prompt"), entry("assistant"), entry("boundary"), ...turn])
      .offsets,
    turn.map((e) => e.offset),
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

Deno.test("BackwardTurnCollector keeps every entry of the payload's prompt_id, whatever it looks like", () => {
  // A prompt-looking entry inside the turn (say, a new kind of synthetic user
  // entry) does not cut it; the previous turn's promptId does.
  const ours = [
    entry("prompt", "p2"),
    entry("assistant", "p2"),
    entry("prompt", "p2"),
    entry("results", "p2"),
  ];
  const got = collect([
    entry("prompt", "p1"),
    entry("note"),
    entry("assistant", "p1"),
    ...ours,
  ], "p2");
  assert.deepEqual(got, { offsets: ours.map((e) => e.offset), complete: true });
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

Deno.test("ForwardTurnSplitter yields each turn between prompts, boundaries and promptId changes", () => {
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
    entry("results", "c"),
  ];
  const turns: number[][] = [];
  for (const e of stream) {
    const closed = splitter.push(e);
    if (closed) turns.push(closed.map((x) => x.offset));
  }
  const last = splitter.finish();
  if (last) turns.push(last.map((x) => x.offset));
  const o = (i: number) => (stream[i] as Entry).offset;
  assert.deepEqual(turns, [[o(0)], [o(2)], [o(5)], [o(7)], [o(8)]]);
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
  // The turn still starts at its prompt.
  assert.deepEqual(
    collector.entries().map((e) => e.offset),
    turn.map((e) => e.offset),
  );
  const [first, ...more] = collector.callsBehind();
  // Only the answered call: "elsewhere" is the turn before's, not pending here.
  assert.deepEqual(
    first?.kind === "assistant" ? first.toolUses.map((u) => u.id) : null,
    ["a"],
  );
  assert.equal(first?.offset, behind.offset);
  assert.equal(more.length, 0);
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
