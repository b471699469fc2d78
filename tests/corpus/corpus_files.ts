/**
 * A corpus of real transcripts kept outside the repository (by default
 * `../shared/corpus/` from the repository root): its manifest, its hand
 * labels, and a temporary Claude config layout linking its files, so that
 * `audit` can read it as a history. Nothing of the corpus is copied into
 * the project; this module only reads it at run time.
 *
 * Layout (the corpus's README): `files/<stored file>`; `manifest.tsv`
 * (stored file, path under a config folder); `labels.tsv` (the flagged
 * turns judged by hand); `announce_labels.tsv` (turn ends that announced
 * an action and stopped).
 *
 * @module
 */

import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** Where the corpus is looked for when no folder is named. */
export const DEFAULT_CORPUS = fileURLToPath(
  new URL("../../../shared/corpus/", import.meta.url),
);

/** One transcript of the corpus. */
export interface CorpusFile {
  /** Its name under `files/`, as the labels name it. */
  stored: string;
  /** Its path under a Claude config folder (`projects/<project>/...`). */
  layout: string;
  /** It is a subagent's transcript (`.../subagents/agent-<id>.jsonl`). */
  subagent: boolean;
}

/** A row of `labels.tsv`: a flagged turn judged by hand. */
export interface StallLabel {
  row: string;
  stored: string;
  turnLine: number;
  signatureLine: number;
  /** `TRUE`, `BENIGN`, `FP-compaction`, `FP-look-behind`, ... */
  verdict: string;
  kindAndTool: string;
  toolUseId: string;
}

/** A row of `announce_labels.tsv`: a turn end judged by hand. */
export interface AnnounceLabel {
  stored: string;
  /** 1-based line of the turn's last assistant entry. */
  lastLine: number;
  /** `1a`, `1b`, `ann-int`, `2`, `3`, `4`. */
  label: string;
}

/** The corpus as read from its folder. */
export interface Corpus {
  root: string;
  files: CorpusFile[];
  labels: StallLabel[];
  announceLabels: AnnounceLabel[];
}

/**
 * Reads the corpus's manifest and labels, or returns null when `root` has
 * no manifest (the corpus is not on this machine).
 */
export function readCorpus(root: string): Corpus | null {
  let manifest: string;
  try {
    manifest = Deno.readTextFileSync(join(root, "manifest.tsv"));
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return null;
    throw error;
  }
  const files = rows(manifest).map(([stored = "", layout = ""]) => ({
    stored,
    layout,
    subagent: /\/subagents\/agent-[^/]+\.jsonl$/.test(layout),
  }));
  const labels = rows(optionalText(join(root, "labels.tsv"))).map((
    [
      row = "",
      stored = "",
      turn = "",
      signature = "",
      verdict = "",
      kind = "",
      id = "",
    ],
  ) => ({
    row,
    stored,
    turnLine: Number(turn),
    signatureLine: Number(signature),
    verdict,
    kindAndTool: kind,
    toolUseId: id,
  }));
  const announceLabels = rows(
    optionalText(join(root, "announce_labels.tsv")),
  ).map(([stored = "", line = "", label = ""]) => ({
    stored,
    lastLine: Number(line),
    label,
  }));
  return { root, files, labels, announceLabels };
}

/** The tab-separated rows of a file, comments and blank lines left out. */
function rows(text: string): string[][] {
  return text.split("\n")
    .filter((line) => line.trim() !== "" && !line.startsWith("#"))
    .map((line) => line.replace(/\r$/, "").split("\t"));
}

function optionalText(path: string): string {
  try {
    return Deno.readTextFileSync(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return "";
    throw error;
  }
}

/** The path of a stored file. */
export function storedPath(corpus: Corpus, stored: string): string {
  return join(corpus.root, "files", stored);
}

/**
 * Links every file of the corpus into `dir` at its layout path, so
 * `dir/projects` reads as a Claude config folder's history. Returns the
 * path of each stored file's link. Symbolic links off Windows (nothing is
 * copied); hard links on Windows, where a symbolic link needs a privilege
 * and Wine's "succeeds" without making one, and a copy where a hard link
 * cannot be made (another volume).
 */
export function linkLayout(corpus: Corpus, dir: string): Map<string, string> {
  const links = new Map<string, string>();
  for (const file of corpus.files) {
    const link = join(dir, file.layout);
    Deno.mkdirSync(dirname(link), { recursive: true });
    const stored = storedPath(corpus, file.stored);
    if (Deno.build.os !== "windows") Deno.symlinkSync(stored, link);
    else {
      try {
        Deno.linkSync(stored, link);
      } catch {
        Deno.copyFileSync(stored, link);
      }
    }
    links.set(file.stored, link);
  }
  return links;
}
