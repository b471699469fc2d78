/**
 * The corpus check's figures per repository: turns against human prompts,
 * stalled and unfinished turns. A rule fitted to one user's habits moves
 * that user's repository and no other; the total hides it, this view shows
 * it. The figures can be saved and compared with a later run.
 *
 * @module
 */

/** One repository's figures. */
export interface RepositoryFigures {
  files: number;
  /** Human prompts, counted apart from the turn rule. */
  prompts: number;
  turns: number;
  /** Stalled turns that ended (what `audit` counts as stalls). */
  stalled: number;
  /** Stalled-looking turns without a sign of their end. */
  unfinished: number;
}

/** Figures by repository name. */
export type CorpusView = Map<string, RepositoryFigures>;

/** The repository a stored file came from: `<owner>__<repo>`. */
export function repositoryOf(stored: string): string {
  return stored.split("/")[0] ?? stored;
}

/** Adds one file's figures to its repository's. */
export function addFile(
  view: CorpusView,
  stored: string,
  figures: Omit<RepositoryFigures, "files">,
): void {
  const name = repositoryOf(stored);
  const sum = view.get(name) ??
    { files: 0, prompts: 0, turns: 0, stalled: 0, unfinished: 0 };
  sum.files++;
  sum.prompts += figures.prompts;
  sum.turns += figures.turns;
  sum.stalled += figures.stalled;
  sum.unfinished += figures.unfinished;
  view.set(name, sum);
}

/** Turns against prompts, as a signed percentage (`+1.2%`). */
function drift(figures: RepositoryFigures): string {
  if (figures.prompts === 0) return figures.turns === 0 ? "0.0%" : "n/a";
  const share = 100 * (figures.turns - figures.prompts) / figures.prompts;
  return `${share >= 0 ? "+" : ""}${share.toFixed(1)}%`;
}

/** The view as table lines, one per repository, by name. */
export function formatView(view: CorpusView): string[] {
  const names = [...view.keys()].sort();
  const width = Math.max(10, ...names.map((n) => n.length));
  const lines = [
    `  ${
      "repository".padEnd(width)
    }  files  prompts  turns   drift  stalled  unfinished`,
  ];
  for (const name of names) {
    const f = view.get(name) as RepositoryFigures;
    lines.push(
      `  ${name.padEnd(width)}  ${String(f.files).padStart(5)}  ${
        String(f.prompts).padStart(7)
      }  ${String(f.turns).padStart(5)}  ${drift(f).padStart(6)}  ${
        String(f.stalled).padStart(7)
      }  ${String(f.unfinished).padStart(10)}`,
    );
  }
  return lines;
}

/** The view as JSON, for `--save`. */
export function viewToJson(view: CorpusView): string {
  return JSON.stringify(Object.fromEntries([...view].sort()), null, 1) + "\n";
}

/** A view saved by {@link viewToJson}. */
export function viewFromJson(text: string): CorpusView {
  const parsed = JSON.parse(text) as Record<string, RepositoryFigures>;
  return new Map(Object.entries(parsed));
}

const FIELDS = ["files", "prompts", "turns", "stalled", "unfinished"] as const;

/**
 * What moved per repository between `before` and `after`: one line per
 * repository whose figures differ (`turns 120 -> 118`), none when nothing
 * did.
 */
export function formatMoves(before: CorpusView, after: CorpusView): string[] {
  const names = [...new Set([...before.keys(), ...after.keys()])].sort();
  const lines: string[] = [];
  for (const name of names) {
    const a = before.get(name);
    const b = after.get(name);
    const moves = FIELDS.flatMap((field) => {
      const from = a?.[field] ?? 0;
      const to = b?.[field] ?? 0;
      return from === to ? [] : [`${field} ${from} -> ${to}`];
    });
    if (moves.length > 0) lines.push(`  ${name}: ${moves.join(", ")}`);
  }
  return lines;
}
