/**
 * A unified diff of two texts (`install --dry-run`), from a longest common
 * subsequence of lines: settings files are small, the quadratic table cheap.
 *
 * @module
 */

const CONTEXT = 3;

/** Largest line-count product diffed exactly (beyond it: one replace hunk). */
const MAX_CELLS = 16_000_000;

type Op = { kind: " " | "-" | "+"; line: string };

/** The unified diff from `before` to `after` (`""` when equal), the names on `---` and `+++`. */
export function unifiedDiff(
  before: string,
  after: string,
  fromName: string,
  toName: string,
): string {
  if (before === after) return "";
  const a = splitLines(before);
  const b = splitLines(after);
  const ops = diffLines(a, b);
  const out = [`--- ${fromName}`, `+++ ${toName}`];
  // Loops, not push(...run): a spread of 100,000 lines overflows the stack.
  for (const hunk of hunks(ops)) for (const line of hunk) out.push(line);
  return out.join("\n") + "\n";
}

/** Marks a last line without `\n`, so it differs from the same text with one. */
const NO_EOL = "\u0000";

function splitLines(text: string): string[] {
  if (text === "") return [];
  const lines = text.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  else lines[lines.length - 1] += NO_EOL;
  return lines;
}

function diffLines(a: readonly string[], b: readonly string[]): Op[] {
  const n = a.length;
  const m = b.length;
  if (n * m > MAX_CELLS) {
    return [
      ...a.map((line) => ({ kind: "-" as const, line })),
      ...b.map((line) => ({ kind: "+" as const, line })),
    ];
  }
  // lcs[i][j] = length of the LCS of a[i..] and b[j..], row-major.
  const width = m + 1;
  const lcs = new Uint32Array((n + 1) * width);
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      lcs[i * width + j] = a[i] === b[j]
        ? (lcs[(i + 1) * width + j + 1] ?? 0) + 1
        : Math.max(lcs[(i + 1) * width + j] ?? 0, lcs[i * width + j + 1] ?? 0);
    }
  }
  const ops: Op[] = [];
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[i] === b[j]) {
      ops.push({ kind: " ", line: a[i++] as string });
      j++;
    } else if (
      j < m &&
      (i >= n ||
        (lcs[i * width + j + 1] ?? 0) >= (lcs[(i + 1) * width + j] ?? 0))
    ) {
      ops.push({ kind: "+", line: b[j++] as string });
    } else {
      ops.push({ kind: "-", line: a[i++] as string });
    }
  }
  // Deletions before insertions inside each changed run, as diff prints them.
  return reorderRuns(ops);
}

function reorderRuns(ops: Op[]): Op[] {
  const out: Op[] = [];
  let run: Op[] = [];
  const flush = () => {
    for (const o of run) if (o.kind === "-") out.push(o);
    for (const o of run) if (o.kind === "+") out.push(o);
    run = [];
  };
  for (const op of ops) {
    if (op.kind === " ") {
      flush();
      out.push(op);
    } else {
      run.push(op);
    }
  }
  flush();
  return out;
}

function hunks(ops: readonly Op[]): string[][] {
  const changed = ops.flatMap((op, index) => op.kind === " " ? [] : [index]);
  const result: string[][] = [];
  for (let k = 0; k < changed.length; k++) {
    const start = Math.max(0, changed[k]! - CONTEXT);
    // A change whose context meets this hunk's joins it.
    while (
      k + 1 < changed.length &&
      changed[k + 1]! - CONTEXT <= changed[k]! + CONTEXT + 1
    ) k++;
    const end = Math.min(changed[k]! + CONTEXT + 1, ops.length);
    result.push(formatHunk(ops, start, end));
  }
  return result;
}

function formatHunk(ops: readonly Op[], start: number, end: number): string[] {
  const count = (from: number, to: number, not: Op["kind"]) =>
    ops.slice(from, to).filter((o) => o.kind !== not).length;
  const oldLine = 1 + count(0, start, "+");
  const newLine = 1 + count(0, start, "-");
  const oldCount = count(start, end, "+");
  const newCount = count(start, end, "-");
  const body = ops.slice(start, end);
  const range = (line: number, count: number) =>
    count === 0
      ? `${line - 1},0`
      : count === 1
      ? `${line}`
      : `${line},${count}`;
  return [
    `@@ -${range(oldLine, oldCount)} +${range(newLine, newCount)} @@`,
    ...body.flatMap((o) =>
      o.line.endsWith(NO_EOL)
        ? [o.kind + o.line.slice(0, -1), "\\ No newline at end of file"]
        : [o.kind + o.line]
    ),
  ];
}
