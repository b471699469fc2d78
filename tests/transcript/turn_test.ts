import assert from "node:assert/strict";
import type { Entry } from "../../src/transcript/entry.ts";
import {
  BackwardTurnCollector,
  ForwardTurnSplitter,
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
