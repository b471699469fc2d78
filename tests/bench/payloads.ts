/**
 * Payload pools for the transcript generator: a large source file (for
 * `Read` results and `Edit` originals) and a large base64 PNG (for image
 * results), each JSON-escaped and UTF-8-encoded once so the generator can
 * splice prefixes of them into lines without re-encoding. Plus the short
 * texts (prompts, replies, thoughts) that make up the small lines.
 *
 * The pools are built from a fixed seed and cached for the process: they are
 * the same for every transcript, which keeps 1 GB writes fast.
 *
 * @module
 */

import { Rng } from "./prng.ts";

const POOL_SEED = 0x5eed_c0de;
const CODE_POOL_BYTES = 720 << 10;
const IMAGE_POOL_BYTES = 900 << 10;
const encoder = new TextEncoder();

/** A prefix of the source pool: the first `lines` lines, escaped for JSON. */
export interface CodeSlice {
  /** `cat -n` style text as the Read tool returns it (`     1→...`). */
  readonly numbered: Uint8Array;
  /** The same lines as raw file content. */
  readonly raw: Uint8Array;
  /** How many lines the slice holds. */
  readonly lines: number;
}

/** A large generated source file, pre-escaped, sliceable at line boundaries. */
export class CodePool {
  /** The pool's lines as plain text (no newline). */
  readonly lines: readonly string[];
  #numbered: Uint8Array;
  #raw: Uint8Array;
  #numberedEnd: Int32Array;
  #rawEnd: Int32Array;

  /** Builds the pool from `rng` (about 720 KiB of numbered text). */
  constructor(rng: Rng) {
    const lines: string[] = [];
    const numbered: string[] = [];
    const raw: string[] = [];
    const numberedEnd: number[] = [];
    const rawEnd: number[] = [];
    let n = 0;
    let r = 0;
    while (n < CODE_POOL_BYTES) {
      const line = codeLine(rng);
      const num = escapeJson(
        `${String(lines.length + 1).padStart(6)}→${line}\n`,
      );
      const plain = escapeJson(`${line}\n`);
      lines.push(line);
      numbered.push(num);
      raw.push(plain);
      n += utf8Length(num);
      r += utf8Length(plain);
      numberedEnd.push(n);
      rawEnd.push(r);
    }
    this.lines = lines;
    this.#numbered = encoder.encode(numbered.join(""));
    this.#raw = encoder.encode(raw.join(""));
    this.#numberedEnd = Int32Array.from(numberedEnd);
    this.#rawEnd = Int32Array.from(rawEnd);
  }

  /** Size in bytes of the whole numbered text. */
  get maxBytes(): number {
    return this.#numbered.length;
  }

  /** Returns the shortest prefix of at least one line whose numbered text reaches `bytes`. */
  slice(bytes: number): CodeSlice {
    const ends = this.#numberedEnd;
    let lo = 0;
    let hi = ends.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((ends[mid] as number) < bytes) lo = mid + 1;
      else hi = mid;
    }
    return {
      numbered: this.#numbered.subarray(0, ends[lo]),
      raw: this.#raw.subarray(0, this.#rawEnd[lo]),
      lines: lo + 1,
    };
  }

  /** Returns `count` consecutive lines starting at a random place, joined. */
  snippet(rng: Rng, count: number): string {
    const start = rng.int(0, this.lines.length - count - 1);
    return this.lines.slice(start, start + count).join("\n");
  }
}

/** A large base64 "PNG", sliceable to any length that is a multiple of 4. */
export class ImagePool {
  #data: Uint8Array;

  /** Builds about 900 KiB of base64 text from `rng`. */
  constructor(rng: Rng) {
    const bytes = new Uint8Array((IMAGE_POOL_BYTES / 4) * 3);
    bytes.set([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    for (let i = 8; i < bytes.length; i++) bytes[i] = rng.u32() & 0xff;
    this.#data = encoder.encode(toBase64(bytes));
  }

  /** Returns the first `bytes` (rounded down to a multiple of 4, at least 4) base64 bytes. */
  slice(bytes: number): Uint8Array {
    const n = Math.max(4, Math.min(this.#data.length, bytes - (bytes % 4)));
    return this.#data.subarray(0, n);
  }
}

/** The pools every generator shares. */
export interface Pools {
  /** Source text for reads, edits and writes. */
  readonly code: CodePool;
  /** Base64 image data. */
  readonly image: ImagePool;
}

let cached: Pools | undefined;

/** Returns the process-wide payload pools, building them on first use. */
export function pools(): Pools {
  if (!cached) {
    const rng = new Rng(POOL_SEED);
    cached = { code: new CodePool(rng), image: new ImagePool(rng) };
  }
  return cached;
}

/** Escapes `text` as the inside of a JSON string literal (no quotes). */
export function escapeJson(text: string): string {
  return JSON.stringify(text).slice(1, -1);
}

/** Returns the UTF-8 byte length of `text` without encoding it. */
export function utf8Length(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c < 0xdc00) {
      n += 4;
      i++;
    } else n += 3;
  }
  return n;
}

function toBase64(bytes: Uint8Array): string {
  let bin = "";
  for (let i = 0; i < bytes.length; i += 0x8000) {
    bin += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(bin);
}

const IDENTS = [
  "transcript",
  "turn",
  "entry",
  "toolUseId",
  "reader",
  "offset",
  "buffer",
  "decision",
  "payload",
  "session",
  "config",
  "result",
  "signature",
  "lineNumber",
  "state",
];
const COMMENTS = [
  "// read from the end: cost must not grow with history",
  "// café: the user's locale → keep accents intact",
  "// 日本語のコメント: 境界を確認する",
  '// TODO(✅): handle the "empty" case \\ carefully',
  "# 🚀 fast path for the common case",
  "/* tab\tseparated\tcolumns */",
];

function codeLine(rng: Rng): string {
  const indent = "  ".repeat(rng.int(0, 4));
  const a = rng.pick(IDENTS);
  const b = rng.pick(IDENTS);
  switch (rng.int(0, 7)) {
    case 0:
      return indent + rng.pick(COMMENTS);
    case 1:
      return `${indent}const ${a}${rng.int(0, 99)} = await ${b}.next();`;
    case 2:
      return `${indent}if (${a}.length > ${rng.int(1, 4096)}) return "${b}";`;
    case 3:
      return `${indent}export function ${a}To${capitalize(b)}(${b}: string): ${
        capitalize(a)
      } {`;
    case 4:
      return `${indent}}`;
    case 5:
      return "";
    case 6:
      return `${indent}${a}.push({ kind: "${b}", line: ${
        rng.int(1, 9999)
      }, path: "src\\\\${a}.ts" });`;
    default:
      return `${indent}throw new TypeError(\`Cannot parse ${a}: "\${${b}}"\`);`;
  }
}

function capitalize(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

/** Human prompts (some non-ASCII, one long). */
export const PROMPTS: readonly string[] = [
  "Fix the failing test in src/reader.ts and explain what was wrong.",
  "Can you refactor the classifier so it only looks at the current turn?",
  "Corrige le bug dans café.ts → le résumé est tronqué, s'il te plaît.",
  "日本語のコメントを追加して、READMEも更新してください。",
  "Ship it 🚀 — but first run the whole test suite and check lint.",
  "Why does the hook take 700 ms on a 100 MB transcript? Profile it.",
  "Add a --json flag to the audit command and document it.",
  "The CI is red again 😩 can you look at the last run's log?",
  "Write a migration for the new `sessions` table (id, started_at, ü-flag).",
  "Please review the diff and tell me what you would change.",
  "Open a GitHub issue for the flaky Windows test and link the run.",
  "Query the staging db: how many sessions stalled last week?",
];

/** Sentences for assistant text blocks. */
export const REPLIES: readonly string[] = [
  "I'll start by reading the relevant files.",
  "Let me check how the reader handles the end of the file.",
  "The test fails because the offset is computed before the buffer is refilled.",
  "Done: the classifier now stops at the last human prompt → O(turn) instead of O(file).",
  "J'ai corrigé le résumé : la coupure se faisait au milieu d'un caractère UTF-8.",
  "READMEを更新しました。日本語のコメントも追加済みです。",
  "All 42 tests pass ✅ and lint is clean.",
  "Here is what I changed:\n\n- `src/reader.ts`: read backwards in 64 KiB blocks\n- `src/classify.ts`: scope to the current turn\n- tests for both",
  "I opened the issue and linked the failing run.",
  "There were 17 stalled sessions last week, most of them on `mcp__github__*` calls.",
];

/** Sentences for non-empty thinking blocks. */
export const THOUGHTS: readonly string[] = [
  "The user wants the failing test fixed. I should read the test first, then the module.",
  "Reading the whole file on every stop is the problem; seek to the end and walk back.",
  "Parallel reads are fine here since the files are independent.",
  "Hmm — the result came back empty. Maybe the MCP server timed out; retry once.",
  "Je dois vérifier l'encodage : « é » fait deux octets en UTF-8.",
  "The tool results arrived out of order; match them by tool_use_id, not position.",
];
