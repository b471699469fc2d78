/**
 * Shared pieces for the property-based hardening tests: how many runs to
 * make, the bundled fixtures as raw bytes, and fast-check arbitraries that
 * damage them the way real transcripts get damaged (lost writes, truncation,
 * reordering) or the way hostile input would (invalid UTF-8, deep nesting,
 * huge strings, wrongly typed fields).
 *
 * Mutations are small descriptions that are applied lazily, so a failing
 * counterexample prints as a few lines, not as megabytes of transcript.
 *
 * @module
 */

import fc from "fast-check";
import { resolve } from "node:path";
import { FIXTURES_DIR, loadCases } from "./cases.ts";

/** What {@link fuzzParameters} hands to `fc.assert`. */
export interface FuzzParameters {
  numRuns: number;
  seed?: number;
}

/**
 * fast-check parameters for one property: `defaultRuns` keeps CI fast;
 * `STALL_WATCH_FUZZ_RUNS=<n>` runs every property `n` times instead, and
 * `STALL_WATCH_FUZZ_SEED=<seed>` replays the seed a failure printed.
 */
export function fuzzParameters(defaultRuns: number): FuzzParameters {
  const runs = Number(Deno.env.get("STALL_WATCH_FUZZ_RUNS") ?? "");
  const seed = Number(Deno.env.get("STALL_WATCH_FUZZ_SEED") ?? "");
  return {
    numRuns: Number.isInteger(runs) && runs > 0 ? runs : defaultRuns,
    ...(Number.isInteger(seed) && Deno.env.get("STALL_WATCH_FUZZ_SEED")
      ? { seed }
      : {}),
  };
}

/** One bundled transcript and how the hook reads it. */
export interface FixtureTranscript {
  name: string;
  bytes: Uint8Array;
  /** The payload's `prompt_id` in the manifest, if any. */
  promptId: string | null;
  /** Read as a subagent's own transcript (sidechain entries kept). */
  subagent: boolean;
  /** How fast-check prints it in a counterexample. */
  [fc.toStringMethod]: () => string;
}

/**
 * Every distinct (fixture, prompt_id, subagent) reading in the manifest.
 *
 * @param maxBytes Leave out fixtures larger than this (the 2.5 MB ones are
 * worth including where a property is cheap per byte).
 */
export function fixtureTranscripts(maxBytes = Infinity): FixtureTranscript[] {
  const seen = new Set<string>();
  const out: FixtureTranscript[] = [];
  for (const c of loadCases()) {
    const promptId = typeof c.payload.prompt_id === "string"
      ? c.payload.prompt_id
      : null;
    const subagent = c.payload.agent_transcript_is_fixture === true;
    const key = `${c.fixture}|${promptId}|${subagent}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const bytes = Deno.readFileSync(resolve(FIXTURES_DIR, c.fixture));
    if (bytes.length > maxBytes) continue;
    out.push({
      name: c.fixture,
      bytes,
      promptId,
      subagent,
      // A counterexample names the fixture instead of printing its bytes.
      [fc.toStringMethod]: () => `fixture(${c.fixture}, ${promptId})`,
    });
  }
  return out;
}

/** Byte sequences a UTF-8 decoder must survive. */
export const BAD_UTF8: readonly (readonly number[])[] = [
  [0xff], // never valid
  [0xc3], // lead byte without its continuation
  [0x80], // continuation without a lead
  [0xed, 0xa0, 0x80], // an encoded UTF-16 surrogate
  [0xc0, 0xaf], // overlong "/"
  [0xf4, 0x90, 0x80, 0x80], // beyond U+10FFFF
  [0xef, 0xbb, 0xbf], // a BOM in the middle of a file
];

/** Shapes of deeply nested lines, each aimed at a different reader path. */
export const NESTED_SHAPES = [
  "result_content", // tool_result content blocks inside blocks: emptiness check
  "assistant_content", // arrays inside an assistant message's content
  "message_object", // objects inside "message"
  "unclosed", // an opening bracket run that never closes
] as const;

/** Units a huge string is made of: plain, whitespace, escapes, raw NULs. */
export const HUGE_UNITS = [
  "a",
  " ",
  "\t",
  "é",
  '\\"',
  "\\u0000",
  "\\n",
  "\0",
] as const;

/** Where a huge string sits. */
export const HUGE_ROLES = [
  "assistant_text",
  "tool_result",
  "prompt",
  "raw",
] as const;

/** A line that is not in any fixture, built when the mutation is applied. */
export type HostileLine =
  | { kind: "nested"; shape: typeof NESTED_SHAPES[number]; depth: number }
  | {
    kind: "huge";
    role: typeof HUGE_ROLES[number];
    unit: typeof HUGE_UNITS[number];
    length: number;
  }
  | { kind: "junk"; bytes: Uint8Array };

/** One way of damaging a transcript. Positions wrap around the input size. */
export type Mutation =
  | { op: "truncate"; at: number }
  | { op: "splice"; at: number; bytes: Uint8Array }
  | { op: "nul_run"; at: number; length: number }
  | { op: "bad_utf8"; at: number; sequence: number }
  | { op: "duplicate_line"; line: number }
  | { op: "drop_line"; line: number }
  | { op: "swap_lines"; line: number; other: number }
  | { op: "insert_line"; line: number; text: HostileLine }
  | { op: "retype_field"; line: number; path: number; value: unknown }
  | { op: "crlf" };

const position = fc.nat();

/** Junk that can never parse as a JSON object: no `{`, no newline. */
export const junkBytes: fc.Arbitrary<Uint8Array> = fc.oneof(
  fc.uint8Array({ maxLength: 80 }),
  fc.constantFrom(...BAD_UTF8.map((s) => new Uint8Array(s))),
  fc.constantFrom(" ", "\r", "\0\0\0", "null", "[1,2]", '"text"', "}")
    .map((s) => new TextEncoder().encode(s)),
).map((bytes) => bytes.filter((b) => b !== 0x0a && b !== 0x7b));

/** A hostile line: deeply nested, huge, or junk. */
export const hostileLine: fc.Arbitrary<HostileLine> = fc.oneof(
  fc.record({
    kind: fc.constant("nested" as const),
    shape: fc.constantFrom(...NESTED_SHAPES),
    // Shallow nesting is common; the deep end is where recursion breaks.
    depth: fc.oneof(
      fc.integer({ min: 1, max: 200 }),
      fc.integer({ min: 10_000, max: 100_000 }),
    ),
  }),
  fc.record({
    kind: fc.constant("huge" as const),
    role: fc.constantFrom(...HUGE_ROLES),
    unit: fc.constantFrom(...HUGE_UNITS),
    // Up to past the 1 MiB line limit, where lines are clipped, not parsed.
    length: fc.oneof(
      fc.integer({ min: 1, max: 1000 }),
      fc.integer({ min: 100_000, max: 1_300_000 }),
    ),
  }),
  fc.record({ kind: fc.constant("junk" as const), bytes: junkBytes }),
);

/** Any one mutation. */
export const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ op: fc.constant("truncate" as const), at: position }),
  fc.record({
    op: fc.constant("splice" as const),
    at: position,
    bytes: fc.uint8Array({ minLength: 1, maxLength: 64 }),
  }),
  fc.record({
    op: fc.constant("nul_run" as const),
    at: position,
    length: fc.integer({ min: 1, max: 8192 }),
  }),
  fc.record({
    op: fc.constant("bad_utf8" as const),
    at: position,
    sequence: fc.nat({ max: BAD_UTF8.length - 1 }),
  }),
  fc.record({ op: fc.constant("duplicate_line" as const), line: position }),
  fc.record({ op: fc.constant("drop_line" as const), line: position }),
  fc.record({
    op: fc.constant("swap_lines" as const),
    line: position,
    other: position,
  }),
  {
    // Hostile lines hold the most variety: pick them more often.
    weight: 4,
    arbitrary: fc.record({
      op: fc.constant("insert_line" as const),
      line: position,
      text: hostileLine,
    }),
  },
  fc.record({
    op: fc.constant("retype_field" as const),
    line: position,
    path: position,
    value: fc.jsonValue({ maxDepth: 3 }),
  }),
  fc.record({ op: fc.constant("crlf" as const) }),
);

/** One to four mutations, applied in order. */
export const mutations: fc.Arbitrary<Mutation[]> = fc.array(mutation, {
  minLength: 1,
  maxLength: 4,
});

const encoder = new TextEncoder();

/** Applies `list` to `bytes` in order; never modifies `bytes`. */
export function applyMutations(
  bytes: Uint8Array,
  list: readonly Mutation[],
): Uint8Array {
  let out = bytes;
  for (const m of list) out = applyMutation(out, m);
  return out;
}

function applyMutation(bytes: Uint8Array, m: Mutation): Uint8Array {
  const at = "at" in m ? m.at % (bytes.length + 1) : 0;
  switch (m.op) {
    case "truncate":
      return bytes.slice(0, at);
    case "splice":
      return insertAt(bytes, at, m.bytes);
    case "nul_run":
      return insertAt(bytes, at, new Uint8Array(m.length));
    case "bad_utf8":
      return insertAt(
        bytes,
        at,
        new Uint8Array(BAD_UTF8[m.sequence] as number[]),
      );
    case "crlf":
      return joinLines(
        splitLines(bytes).lines.map((l) => concat([l, Uint8Array.of(0x0d)])),
        splitLines(bytes).tail,
      );
    default:
      return mutateLines(bytes, m);
  }
}

function mutateLines(bytes: Uint8Array, m: Mutation): Uint8Array {
  const { lines, tail } = splitLines(bytes);
  const n = lines.length;
  switch (m.op) {
    case "insert_line":
      lines.splice(m.line % (n + 1), 0, buildHostileLine(m.text));
      break;
    case "duplicate_line":
      if (n > 0) {
        const i = m.line % n;
        lines.splice(i, 0, lines[i] as Uint8Array);
      }
      break;
    case "drop_line":
      if (n > 0) lines.splice(m.line % n, 1);
      break;
    case "swap_lines":
      if (n > 0) {
        const [i, j] = [m.line % n, m.other % n];
        [lines[i], lines[j]] = [lines[j] as Uint8Array, lines[i] as Uint8Array];
      }
      break;
    case "retype_field":
      if (n > 0) {
        const i = m.line % n;
        lines[i] = retype(lines[i] as Uint8Array, m.path, m.value);
      }
      break;
    default:
      return bytes;
  }
  return joinLines(lines, tail);
}

/** Sets one nested field of a JSON line to `value` (lines that are not JSON stay). */
function retype(line: Uint8Array, pick: number, value: unknown): Uint8Array {
  let data: unknown;
  try {
    data = JSON.parse(new TextDecoder().decode(line));
  } catch {
    return line;
  }
  const slots: [Record<string, unknown> | unknown[], string | number][] = [];
  const visit = (node: unknown, depth: number): void => {
    if (depth > 4 || typeof node !== "object" || node === null) return;
    const container = node as Record<string, unknown> | unknown[];
    for (const key of Object.keys(container)) {
      const slot = Array.isArray(container) ? Number(key) : key;
      slots.push([container, slot]);
      visit((container as Record<string, unknown>)[key], depth + 1);
    }
  };
  visit(data, 0);
  if (slots.length === 0) return line;
  const [container, slot] = slots[pick % slots.length] as [
    Record<string | number, unknown>,
    string | number,
  ];
  container[slot] = value;
  try {
    return encoder.encode(JSON.stringify(data));
  } catch {
    return line; // nested too deep for JSON.stringify's recursion: keep it
  }
}

/** The bytes of a hostile line (without its newline). */
export function buildHostileLine(line: HostileLine): Uint8Array {
  if (line.kind === "junk") return line.bytes;
  if (line.kind === "huge") return encoder.encode(hugeLine(line));
  const d = line.depth;
  switch (line.shape) {
    case "result_content":
      return encoder.encode(
        '{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_nested","content":' +
          '[{"content":'.repeat(d) + '""' + "}]".repeat(d) + "}]}}",
      );
    case "assistant_content":
      return encoder.encode(
        '{"type":"assistant","message":{"id":"msg_nested","content":[{"type":"tool_use","id":"toolu_nested","name":"Read","input":' +
          "[".repeat(d) + "]".repeat(d) + "}," + "[".repeat(d) +
          "]".repeat(d) + "]}}",
      );
    case "message_object":
      return encoder.encode(
        '{"type":"user","message":' + '{"content":'.repeat(d) + '"deep"' +
          "}".repeat(d) + "}",
      );
    case "unclosed":
      return encoder.encode('{"type":"user","message":' + "[{".repeat(d));
  }
}

function hugeLine(
  line: Extract<HostileLine, { kind: "huge" }>,
): string {
  const body = line.unit.repeat(
    Math.max(1, Math.floor(line.length / line.unit.length)),
  );
  switch (line.role) {
    case "assistant_text":
      return `{"type":"assistant","message":{"id":"msg_huge","role":"assistant","content":[{"type":"text","text":"${body}"}]}}`;
    case "tool_result":
      return `{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_huge","content":"${body}"}]}}`;
    case "prompt":
      return `{"type":"user","message":{"role":"user","content":"${body}"}}`;
    case "raw":
      return `{${body}x`;
  }
}

/** Complete lines (without `\n`) and the bytes after the last `\n`. */
export function splitLines(
  bytes: Uint8Array,
): { lines: Uint8Array[]; tail: Uint8Array } {
  const lines: Uint8Array[] = [];
  let start = 0;
  for (let i = bytes.indexOf(0x0a); i >= 0; i = bytes.indexOf(0x0a, start)) {
    lines.push(bytes.subarray(start, i));
    start = i + 1;
  }
  return { lines, tail: bytes.subarray(start) };
}

/** The inverse of {@link splitLines}. */
export function joinLines(lines: Uint8Array[], tail: Uint8Array): Uint8Array {
  const parts: Uint8Array[] = [];
  for (const line of lines) parts.push(line, Uint8Array.of(0x0a));
  parts.push(tail);
  return concat(parts);
}

function insertAt(bytes: Uint8Array, at: number, extra: Uint8Array) {
  return concat([bytes.subarray(0, at), extra, bytes.subarray(at)]);
}

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}
