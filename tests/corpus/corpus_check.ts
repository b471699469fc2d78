/**
 * `deno task corpus [dir]`: real transcripts as the measure. Audits the
 * corpus (default `../shared/corpus/` from the repository root; see its
 * README) through a temporary Claude config layout, and checks every hand
 * label against what stall-watch says:
 *
 * - `TRUE` (and `UNVERIFIED`) turns are stalled turns; `BENIGN`,
 *   `FP-compaction`, `FP-look-behind` and captures marked `†` are not;
 * - turns that ended on a usage limit are API-error endings, never stalls;
 * - the Stop hook, run on the file cut after each labelled turn, blocks a
 *   `TRUE` turn and allows a `BENIGN` one;
 * - the audit's turn count is within 2% of one turn per human prompt,
 *   counted here independently of the turn rule;
 * - `announced_no_call` against `announce_labels.tsv`: it fires on no turn
 *   end not labelled `1a` or `1b`, and catches at least 3 of them;
 * - no turn, split forward as the watcher splits it, waits for a prompt
 *   line that is not on file (`openerPending`): a wrong wait there would
 *   hold the watcher's verdict 10 s on every such turn.
 *
 * It prints the figures, per repository as well (turns against human
 * prompts, stalled and unfinished turns: a rule that moves one repository
 * shows there, not only in the total), every stalled turn and every
 * announcement firing that has no label (to be judged by hand), and exits 1
 * when a check fails. Without the corpus it says so in one line and exits 0.
 *
 * `deno task corpus [dir] [--save <file>] [--against <file>]`: `--save`
 * writes the per-repository figures as JSON, `--against` prints, per
 * repository, how they moved since such a file (check for fitting: run it
 * before and after a rule changes).
 *
 * @module
 */

import { join } from "node:path";
import { auditFiles } from "../../src/audit/_audit.ts";
import { summarizeAudit } from "../../src/audit/audit_summary.ts";
import {
  type HistoryVerdict,
  readHistoryVerdicts,
} from "../../src/detection/history_turns.ts";
import { runHook } from "../../src/hook/_hook.ts";
import { findTranscripts } from "../../src/transcript/transcript_files.ts";
import { openerPending } from "../../src/transcript/turn_rule.ts";
import { forwardTurns } from "../support/forward_turns.ts";
import {
  type Corpus,
  type CorpusFile,
  DEFAULT_CORPUS,
  linkLayout,
  readCorpus,
  type StallLabel,
  storedPath,
} from "./corpus_files.ts";
import {
  addFile,
  type CorpusView,
  formatMoves,
  formatView,
  viewFromJson,
  viewToJson,
} from "./corpus_view.ts";

/** Most the turn count may differ from the human prompts, as a share. */
const TURNS_PER_PROMPT_TOLERANCE = 0.02;

/** Labels of `announce_labels.tsv` that mark an announced stop. */
const ANNOUNCED_LABELS = new Set(["1a", "1b"]);

/** Least number of those `announced_no_call` must catch. */
const MIN_ANNOUNCEMENTS_CAUGHT = 3;

/** One turn of a corpus file, as the audit judges it. */
interface JudgedTurn extends HistoryVerdict {
  /** Where `announced_no_call` fires: the announcing message's line. */
  announcedLine: number | null;
  announcement: string;
}

/**
 * Every turn of `file`, judged as `audit` judges it (the shared reader, at
 * its layout path: a subagent's parent is beside it).
 */
async function judgeFile(path: string, subagent: boolean) {
  const handle = await Deno.open(path);
  try {
    const turns: JudgedTurn[] = [];
    for await (
      const judged of readHistoryVerdicts(handle, { subagent, path })
    ) {
      turns.push({
        ...judged,
        announcedLine: judged.announced?.line ?? null,
        announcement: judged.announced?.announcement ?? "",
      });
    }
    return turns;
  } finally {
    handle.close();
  }
}

/**
 * Text openings Claude Code writes in user entries that no human typed (an
 * IDE's `<ide_opened_file>` context leads a typed prompt, and counts).
 */
const NOT_TYPED = [
  "<command-args>",
  "<local-command-",
  "<bash-",
  "<task-notification>",
  "<system-reminder>",
  "<user-memory-input>",
  "<session-start-hook>",
  "[Request interrupted",
  "Caveat:",
  "Stop hook feedback",
  "This session is being continued",
  "This slash command can only be invoked by Claude",
];

/**
 * The human prompts of a file, counted without the turn rule: user entries
 * of the file's own thread a person typed (not tool results, not Claude
 * Code's own notes), and slash commands the person typed (not the model's
 * launch) whose expanded prompt follows them.
 */
export function countHumanPrompts(text: string, subagent: boolean): number {
  const entries: Record<string, unknown>[] = [];
  for (const line of text.split("\n")) {
    try {
      const value = JSON.parse(line);
      if (value?.type === "user" || value?.type === "assistant") {
        entries.push(value);
      }
    } catch { /* not a conversation line */ }
  }
  const byUuid = new Map(entries.map((e) => [e.uuid, e]));
  // The model's launch (the SlashCommand or Skill tool): the command's line
  // names the call, or hangs off the tool's result.
  const launched = (command: Record<string, unknown>) => {
    if (typeof command.sourceToolUseID === "string") return true;
    const parent = byUuid.get(command.parentUuid);
    const content = (parent?.message as { content?: unknown } | undefined)
      ?.content;
    return Array.isArray(content) &&
      content.some((b) => b?.type === "tool_result");
  };
  let prompts = 0;
  entries.forEach((entry, i) => {
    if (entry.type !== "user" || (entry.isSidechain === true) !== subagent) {
      return;
    }
    if (entry.isMeta === true || entry.isCompactSummary === true) return;
    const content = (entry.message as { content?: unknown } | undefined)
      ?.content;
    const blocks = Array.isArray(content) ? content : [];
    if (blocks.some((b) => b?.type === "tool_result")) return;
    const typed = (typeof content === "string"
      ? content
      : blocks.filter((b) =>
        b?.type === "text"
      ).map((b) => String(b.text))
        .join("\n")).trimStart();
    if (/^<command-(?:name|message)>/.test(typed)) {
      if (isExpansionOf(entries[i + 1], entry) && !launched(entry)) prompts++;
      return;
    }
    const image = blocks.some((b) => b?.type === "image");
    if (typed === "" ? image : !NOT_TYPED.some((p) => typed.startsWith(p))) {
      prompts++;
    }
  });
  return prompts;
}

/**
 * Whether `next` is the expanded prompt of the command line `command`: an
 * `isMeta` entry that is not the caveat of a local command after it, and
 * hangs off the command's line where both say.
 */
function isExpansionOf(
  next: Record<string, unknown> | undefined,
  command: Record<string, unknown>,
): boolean {
  if (next?.isMeta !== true) return false;
  const content = (next.message as { content?: unknown } | undefined)?.content;
  const text = typeof content === "string"
    ? content
    : Array.isArray(content)
    ? content.map((b) => b?.type === "text" ? String(b.text) : "").join("")
    : "";
  if (/^\s*(?:<local-command-caveat>|Caveat:)/.test(text)) return false;
  return next.parentUuid === undefined || command.uuid === undefined ||
    next.parentUuid === command.uuid;
}

/** The hook's exit code on `path` cut after `lastLine`. */
async function hookExit(
  path: string,
  lastLine: number,
  subagent: boolean,
  work: string,
): Promise<number> {
  const lines = (await Deno.readTextFile(path)).split("\n");
  const cwd = await Deno.makeTempDir({ dir: work, prefix: "hook-" });
  const cut = join(cwd, "transcript.jsonl");
  await Deno.writeTextFile(cut, lines.slice(0, lastLine).join("\n") + "\n");
  const payload = stopPayload("corpus-check", cut, cwd, subagent);
  const outcome = await runHook(payload, {
    env: {},
    cwd,
    now: () => Date.now(),
    sleep: () => Promise.resolve(),
  });
  return outcome.exitCode;
}

/** The Stop (or SubagentStop) payload of the transcript at `path`. */
function stopPayload(
  sessionId: string,
  path: string,
  cwd: string,
  subagent: boolean,
): string {
  return JSON.stringify({
    session_id: sessionId,
    transcript_path: path,
    cwd,
    hook_event_name: subagent ? "SubagentStop" : "Stop",
    stop_hook_active: false,
    ...(subagent ? { agent_transcript_path: path, agent_id: "corpus" } : {}),
  });
}

/**
 * The turns of `path` at whose end the Stop hook blocks, the file cut right
 * after each turn as Claude Code would have had it when that turn's Stop
 * fired. One copy, cut from the end (a truncate per turn), and a clock that
 * moves only when the hook sleeps: the lag wait costs nothing.
 */
async function hookAtEveryTurnEnd(
  path: string,
  turns: readonly JudgedTurn[],
  subagent: boolean,
  work: string,
): Promise<JudgedTurn[]> {
  const bytes = await Deno.readFile(path);
  const lineEnds: number[] = [];
  for (let i = 0; i < bytes.length; i++) {
    if (bytes[i] === 0x0a) lineEnds.push(i + 1);
  }
  if (bytes.length > 0 && bytes[bytes.length - 1] !== 0x0a) {
    lineEnds.push(bytes.length);
  }
  const cwd = await Deno.makeTempDir({ dir: work, prefix: "ends-" });
  const cut = join(cwd, "transcript.jsonl");
  await Deno.writeFile(cut, bytes);
  let clock = Date.now();
  const blocked: JudgedTurn[] = [];
  try {
    for (let i = turns.length - 1; i >= 0; i--) {
      const next = turns[i + 1];
      const lastLine = next ? next.firstLine - 1 : lineEnds.length;
      await Deno.truncate(cut, lineEnds[lastLine - 1] ?? 0);
      const payload = stopPayload(`corpus-end-${i}`, cut, cwd, subagent);
      const outcome = await runHook(payload, {
        env: {},
        cwd,
        now: () => clock,
        sleep: (ms: number) => {
          clock += ms;
          return Promise.resolve();
        },
      });
      if (outcome.exitCode === 2) blocked.push(turns[i] as JudgedTurn);
    }
  } finally {
    await Deno.remove(cwd, { recursive: true });
  }
  return blocked;
}

/**
 * The label of a turn that ended on an API error no nudge can fix: an
 * API-error ending, never a stall, allowed by the hook.
 */
const API_ERROR_LABEL = "API-ERR";

/** What a label expects of its turn. */
function expectation(verdict: string): "stall" | "no stall" | "unknown" {
  if (verdict === "TRUE" || verdict.startsWith("UNVERIFIED")) return "stall";
  if (
    verdict === "BENIGN" || verdict === API_ERROR_LABEL ||
    verdict.startsWith("FP-") || verdict.includes("†")
  ) return "no stall";
  return "unknown";
}

/** Runs the checks; returns the exit code. */
async function main(args: readonly string[]): Promise<number> {
  const rest = [...args];
  const save = takeOption(rest, "--save");
  const against = takeOption(rest, "--against");
  const root = rest[0] ?? DEFAULT_CORPUS;
  const corpus = readCorpus(root);
  if (corpus === null) {
    console.log(`corpus: no corpus at ${root} (no manifest.tsv); skipped`);
    return 0;
  }
  const work = await Deno.makeTempDir({ prefix: "stall-watch-corpus-" });
  try {
    const before = against === null
      ? null
      : viewFromJson(await Deno.readTextFile(against));
    return await check(corpus, work, { save, before });
  } finally {
    await Deno.remove(work, { recursive: true });
  }
}

/** Takes `--name <value>` out of `args`; null when absent. */
function takeOption(args: string[], name: string): string | null {
  const at = args.indexOf(name);
  if (at < 0) return null;
  const [, value] = args.splice(at, 2);
  if (value === undefined) throw new Error(`${name} needs a file`);
  return value;
}

/** Where the per-repository view goes besides the screen. */
interface ViewOptions {
  /** Write the view here as JSON. */
  save: string | null;
  /** A view saved earlier: print what moved since. */
  before: CorpusView | null;
}

async function check(
  corpus: Corpus,
  work: string,
  viewOptions: ViewOptions,
): Promise<number> {
  const failures: string[] = [];
  const started = performance.now();

  // The audit itself, over the linked layout.
  const links = linkLayout(corpus, work);
  const found = findTranscripts(join(work, "projects"));
  const summary = summarizeAudit(await auditFiles(found.files));

  // Every turn, per stored file; human prompts counted apart.
  const judged = new Map<string, JudgedTurn[]>();
  const byStored = new Map<string, CorpusFile>();
  let prompts = 0;
  let forwardTurnCount = 0;
  let waitingTurns = 0;
  const view: CorpusView = new Map();
  for (const file of corpus.files) {
    const path = storedPath(corpus, file.stored);
    const turns = await judgeFile(
      links.get(file.stored) ?? path,
      file.subagent,
    );
    judged.set(file.stored, turns);
    byStored.set(file.stored, file);
    const text = await Deno.readTextFile(path);
    const filePrompts = countHumanPrompts(text, file.subagent);
    prompts += filePrompts;
    addFile(view, file.stored, {
      prompts: filePrompts,
      turns: turns.length,
      stalled: turns.filter((t) => t.outcome === "stalled").length,
      unfinished: turns.filter((t) => t.outcome === "unfinished").length,
    });
    if (file.subagent) continue;
    for (const turn of forwardTurns(text)) {
      forwardTurnCount++;
      if (openerPending(turn.entries, turn.opener)) {
        waitingTurns++;
        failures.push(
          `${file.stored}: the turn at line ${turn.startLine} would wait for its prompt line, though the file is whole`,
        );
      }
    }
  }
  const turnCount = [...judged.values()].reduce((n, t) => n + t.length, 0);
  if (turnCount !== summary.turns) {
    failures.push(
      `the audit counted ${summary.turns} turns, the check ${turnCount}`,
    );
  }
  const drift = prompts > 0 ? (summary.turns - prompts) / prompts : 0;
  const driftText = `${(100 * drift).toFixed(1)}%`;
  if (Math.abs(drift) > TURNS_PER_PROMPT_TOLERANCE) {
    failures.push(
      `turns ${summary.turns} against ${prompts} human prompts (${driftText}, more than ${
        100 * TURNS_PER_PROMPT_TOLERANCE
      }%)`,
    );
  }

  // The labels.
  const turnAt = (stored: string, line: number) =>
    judged.get(stored)?.find((t) => t.firstLine <= line && line <= t.endLine);
  const stalled = (t: JudgedTurn | undefined) => t?.outcome === "stalled";
  const labelled = new Set<string>();
  const held: string[] = [];
  for (const label of corpus.labels) {
    const turn = turnAt(label.stored, label.signatureLine);
    if (turn) labelled.add(`${label.stored}:${turn.startLine}`);
    const want = expectation(label.verdict);
    const got = stalled(turn)
      ? "stall"
      : turn?.outcome === "unfinished"
      ? "unfinished"
      : "no stall";
    const name = `row ${label.row} ${label.verdict}`;
    if (want === "unknown") {
      failures.push(`${name}: a verdict this check does not know`);
    } else if ((want === "stall") !== (got === "stall")) {
      failures.push(`${name}: audit says ${got} (${describe(label)})`);
    } else {
      held.push(`${name}: ${got}`);
    }
    if (
      label.verdict === API_ERROR_LABEL && !turn?.verdict.endedOnUnfixableError
    ) {
      failures.push(`${name}: the audit does not count an API-error ending`);
    }
    const hookWant = label.verdict === "TRUE"
      ? 2
      : label.verdict === "BENIGN" || label.verdict === API_ERROR_LABEL
      ? 0
      : null;
    if (hookWant !== null && turn) {
      const next = judged.get(label.stored)?.find((t) =>
        t.firstLine > turn.endLine
      );
      const cutAt = next ? next.firstLine - 1 : Number.MAX_SAFE_INTEGER;
      const file = byStored.get(label.stored) as CorpusFile;
      const exit = await hookExit(
        storedPath(corpus, label.stored),
        cutAt,
        file.subagent,
        work,
      );
      if (exit !== hookWant) {
        failures.push(
          `${name}: the hook exits ${exit} at the turn's end, not ${hookWant}`,
        );
      } else held.push(`${name}: the hook exits ${exit} at the turn's end`);
    }
  }

  // The hook at every turn end: it blocks only turns a label calls a stall
  // (or one no Stop ever reached: a file captured mid-turn, `†`).
  let hookedEnds = 0;
  for (const file of corpus.files) {
    const turns = judged.get(file.stored) ?? [];
    const blocked = await hookAtEveryTurnEnd(
      storedPath(corpus, file.stored),
      turns,
      file.subagent,
      work,
    );
    hookedEnds += turns.length;
    for (const turn of blocked) {
      const labels = corpus.labels.filter((l) =>
        l.stored === file.stored && turn.firstLine <= l.signatureLine &&
        l.signatureLine <= turn.endLine
      );
      const expected = labels.some((l) =>
        expectation(l.verdict) === "stall" || l.verdict.includes("†")
      );
      if (!expected) {
        failures.push(
          `${file.stored}: the hook blocks at the end of the turn at line ${turn.startLine}, which no label calls a stall`,
        );
      }
    }
  }
  held.push(
    `the hook at all ${hookedEnds} turn ends blocks only labelled stalls`,
  );

  // Usage limits: API-error endings, never stalls.
  let limitTurns = 0;
  for (const turns of judged.values()) {
    for (const t of turns) {
      if (!t.verdict.endedOnUsageLimit) continue;
      limitTurns++;
      if (t.verdict.signatures.length > 0 || !t.verdict.endedOnApiError) {
        failures.push(`a usage-limit ending judged as a stall`);
      }
    }
  }

  // Stalled turns nobody judged yet.
  const unjudged: string[] = [];
  const unfinished: string[] = [];
  for (const [stored, turns] of judged) {
    for (const t of turns) {
      const first = t.verdict.signatures[0];
      if (!first) continue;
      const where = `${stored}: turn at line ${t.startLine}, ${first.kind} ${
        first.toolName || "(no tool)"
      } at line ${first.line}`;
      if (t.ending !== "ended") unfinished.push(`${where} (${t.ending})`);
      else if (!labelled.has(`${stored}:${t.startLine}`)) unjudged.push(where);
    }
  }

  // Announced, then stopped: the detector against its hand labels.
  const announceLabels = new Map(
    corpus.announceLabels.map((l) => [`${l.stored}:${l.lastLine}`, l.label]),
  );
  let turnEnds = 0;
  let caught = 0;
  const wrong: string[] = [];
  const announceLines: string[] = [];
  // Per repository (a rule that moves one repository only is about it).
  const byRepository = new Map<
    string,
    { ends: number; fired: number; caught: number; missed: number }
  >();
  const repositoryOf = (stored: string) => {
    const name = stored.slice(0, stored.indexOf("/"));
    let counts = byRepository.get(name);
    if (!counts) {
      counts = { ends: 0, fired: 0, caught: 0, missed: 0 };
      byRepository.set(name, counts);
    }
    return counts;
  };
  for (const [stored, turns] of judged) {
    if (byStored.get(stored)?.subagent) continue;
    for (const t of turns) {
      turnEnds++;
      repositoryOf(stored).ends++;
      if (t.announcedLine === null) continue;
      repositoryOf(stored).fired++;
      const label = announceLabels.get(`${stored}:${t.announcedLine}`);
      const where = `${stored}: line ${t.announcedLine}, ${
        JSON.stringify(t.announcement)
      }`;
      if (label !== undefined && ANNOUNCED_LABELS.has(label)) {
        caught++;
        repositoryOf(stored).caught++;
        announceLines.push(`${label} caught: ${where}`);
      } else if (label !== undefined) {
        wrong.push(`labelled ${label}: ${where}`);
      } else {
        wrong.push(`UNLABELLED (judge it by hand): ${where}`);
      }
    }
  }
  const positives = corpus.announceLabels.filter((l) =>
    ANNOUNCED_LABELS.has(l.label)
  );
  for (const label of positives) {
    const fired = judged.get(label.stored)?.some((t) =>
      t.announcedLine === label.lastLine
    );
    if (!fired) {
      repositoryOf(label.stored).missed++;
      announceLines.push(
        `${label.label} missed: ${label.stored}: line ${label.lastLine}`,
      );
    }
  }
  for (const line of wrong) failures.push(`announced_no_call fired: ${line}`);
  const wanted = Math.min(MIN_ANNOUNCEMENTS_CAUGHT, positives.length);
  if (caught < wanted) {
    failures.push(
      `announced_no_call caught ${caught} of ${positives.length} labelled announcements, fewer than ${wanted}`,
    );
  }
  const firings = caught + wrong.length;
  const precision = firings > 0 ? `${caught}/${firings}` : "no firing";

  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  console.log(
    `corpus: ${corpus.root} (${corpus.files.length} transcripts, ${seconds} s)`,
  );
  console.log(
    `  turns: ${summary.turns}   human prompts: ${prompts} (turns ${
      drift >= 0 ? "+" : ""
    }${driftText})`,
  );
  console.log(
    `  stalled turns: ${summary.stalledTurns}   unfinished turns: ${summary.unfinishedTurns}   stalled turns on an API error: ${summary.apiErrorTurns}   API-error endings no nudge can fix: ${summary.unfixableErrorTurns} (usage limits: ${limitTurns})`,
  );
  console.log(
    `  labelled verdicts: ${corpus.labels.length}, checks held: ${held.length}, failed: ${failures.length}`,
  );
  console.log(
    `  main-thread turns split forward: ${forwardTurnCount}, waiting for their prompt line: ${waitingTurns}`,
  );
  console.log(
    `  announced_no_call: fired ${firings} times on ${turnEnds} turn ends of main transcripts; precision ${precision}, recall ${caught}/${positives.length} (labels 1a, 1b)`,
  );
  for (const line of announceLines) console.log(`  announced_no_call ${line}`);
  for (
    const [name, n] of [...byRepository].sort(([a], [b]) => a < b ? -1 : 1)
  ) {
    if (n.fired === 0 && n.missed === 0) continue;
    console.log(
      `  announced_no_call in ${name}: ${n.ends} turn ends, fired ${n.fired} (${n.caught} labelled), missed ${n.missed}`,
    );
  }
  console.log("  per repository:");
  for (const line of formatView(view)) console.log(line);
  if (viewOptions.before !== null) {
    const moves = formatMoves(viewOptions.before, view);
    console.log(
      `  moved since the saved view: ${moves.length ? "" : "nothing"}`,
    );
    for (const line of moves) console.log(line);
  }
  if (viewOptions.save !== null) {
    await Deno.writeTextFile(viewOptions.save, viewToJson(view));
  }
  for (const line of held) console.log(`  ok    ${line}`);
  for (const line of unfinished) {
    console.log(`  unfinished (not a stall): ${line}`);
  }
  for (const line of unjudged) {
    console.log(`  UNLABELLED stalled turn: ${line}`);
    failures.push(`an unlabelled stalled turn: ${line}`);
  }
  for (const line of failures) console.log(`  FAIL  ${line}`);
  return failures.length === 0 ? 0 : 1;
}

function describe(label: StallLabel): string {
  return `${label.stored} line ${label.signatureLine}, ${label.kindAndTool}`;
}

if (import.meta.main) Deno.exit(await main(Deno.args));
