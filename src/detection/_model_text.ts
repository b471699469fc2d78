/**
 * What the model's closing words say: had it answered, did it announce an
 * action of its own? By structure and words; rules in docs/detection.md.
 *
 * @module
 */

import {
  type ClosingLine,
  MAX_CLOSING_CHARS,
  readClosing,
} from "./_closing_prose.ts";
import {
  type Announced,
  conditionalOrLater,
  handsBack,
  normalise,
  readEnglish,
  type Reading,
} from "./_announce_phrases.ts";
import { readChinese, readJapanese, readKorean } from "./_announce_asian.ts";
import {
  readFrench,
  readGerman,
  readPortuguese,
  readRussian,
  readSpanish,
} from "./_announce_european.ts";

/** In the order they are tried. */
const LANGUAGES: readonly Reading[] = [
  readEnglish,
  readChinese,
  readJapanese,
  readKorean,
  readSpanish,
  readPortuguese,
  readFrench,
  readGerman,
  readRussian,
];

/** What a normalised clause announces, in the first language that reads one. */
function announcedIn(s: string, colon: boolean): Announced | null {
  for (const read of LANGUAGES) {
    const found = read(s, colon);
    if (found) return found;
  }
  return null;
}

/** Most characters of a text that are looked at (its end). */
export const MAX_TEXT_CHARS = MAX_CLOSING_CHARS;

/** Most characters of an announcement quoted back. */
export const MAX_QUOTE_CHARS = 200;

/** A complete answer that does not hand back is this long, over these lines. */
const COMPLETE_MIN_CHARS = 400;
const COMPLETE_MIN_LINES = 3;

/** A longer sentence announces nothing (and the clause search stays bounded). */
const MAX_SENTENCE_CHARS = 600;

/** Clauses of a sentence, from its end, where an opener is looked for. */
const MAX_CLAUSES = 4;

/** What the closing text says. */
interface TextJudgement {
  /** The closing sentence announcing the model's own immediate action, quoted. */
  announcement: string | null;
  /** The closing sentence hands the turn back (a question, offer, request). */
  handsBack: boolean;
  /** The text introduces what comes next: a closing colon, or an announcement. */
  leadsOn: boolean;
  /** A hand-back, or a report of some length, that does not lead on. */
  complete: boolean;
}

/** Judges the model's closing text (its last {@link MAX_TEXT_CHARS}). */
export function judgeClosingText(text: string): TextJudgement {
  const closing = readClosing(text);
  const lines = closing.lines;
  const last = lines.at(-1);
  // The last line that holds the model's words (prose, a heading, an item).
  const words = lines.findLast((line) => line.plain !== "");
  const backed = lastAsks(words) || leadInHandsBack(lines);
  const announcement = closing.ambiguous ? null : announced(lines);
  const colon = last !== undefined && last === words &&
    /[:：]\s*$/.test(last.plain);
  const leadsOn = announcement !== null || (colon && !backed);
  const substantial =
    text.slice(-MAX_TEXT_CHARS).trim().length >= COMPLETE_MIN_CHARS &&
    lines.length >= COMPLETE_MIN_LINES;
  return {
    announcement,
    handsBack: backed,
    leadsOn,
    complete: !leadsOn && (backed || substantial),
  };
}

/** A reply ending on a list whose lead-in asks ("Which would you like:") hands back. */
function leadInHandsBack(lines: readonly ClosingLine[]): boolean {
  if (lines.at(-1)?.kind !== "item") return false;
  const leadIn = lines.findLast((line) => line.kind !== "item");
  return leadIn?.kind === "prose" && lastAsks(leadIn);
}

/** As written, and masked (see `ClosingLine`). */
interface Sentence {
  plain: string;
  masked: string;
}

function asks(sentence: Sentence | undefined): boolean {
  return sentence !== undefined && handsBack(normalise(sentence.masked));
}

/** Whether the last sentence of `line` asks or hands back. */
function lastAsks(line: ClosingLine | undefined): boolean {
  return line !== undefined && line.plain !== "" &&
    asks(sentencesOf(line).at(-1));
}

/** A sentence ends at `.`, `!`, `?`, `…` before a space, or at `。！？`. */
const SENTENCE_END = /[.!?…](?=\s+\S)|[。！？](?=\s*\S)/g;

/** Split where the masked text ends a sentence. */
function sentencesOf(line: ClosingLine): Sentence[] {
  const sentences: Sentence[] = [];
  let start = 0;
  for (const end of line.masked.matchAll(SENTENCE_END)) {
    const stop = (end.index ?? 0) + 1;
    pushSentence(sentences, line, start, stop);
    start = stop;
  }
  pushSentence(sentences, line, start, line.masked.length);
  return sentences;
}

function pushSentence(
  into: Sentence[],
  line: ClosingLine,
  start: number,
  stop: number,
): void {
  const masked = line.masked.slice(start, stop);
  const lead = masked.length - masked.trimStart().length;
  const trail = masked.trimEnd().length;
  if (trail <= lead) return;
  into.push({
    plain: line.plain.slice(start + lead, start + trail),
    masked: masked.slice(lead, trail),
  });
}

/**
 * The announcement the closing text ends on: a closing prose sentence (or
 * "Next: creating ..." label, "... while I continue") announcing an action,
 * or a block whose lead-in announces one with a colon or "now"; never after
 * a question, hand-back or condition (docs/detection.md).
 */
function announced(lines: readonly ClosingLine[]): string | null {
  const last = lines.at(-1);
  if (last === undefined) return null;
  if (last.kind === "prose" || last.kind === "heading") {
    const sentences = sentencesOf(last);
    const sentence = sentences.at(-1);
    if (sentence === undefined) return null;
    if (asksBefore(lines, lines.length - 1, sentences)) return null;
    const label = nextLabel(last);
    if (label !== null) return quote(label);
    const found = announcement(sentence, last);
    const acts = found !== null &&
      (found.kind !== "saying" || found.closingColon);
    return acts || continuesWhile(sentence) ? quote(sentence.plain) : null;
  }
  // The reply ends on a block: find the prose that leads into it.
  let codeLike = false;
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = lines[i] as ClosingLine;
    if (
      line.kind === "code" || line.kind === "quote" || line.kind === "table"
    ) {
      codeLike = true;
      continue;
    }
    if (line.kind === "item" || line.kind === "other") continue;
    const sentences = sentencesOf(line);
    const sentence = sentences.at(-1);
    if (sentence === undefined) continue;
    const found = announcement(sentence, line);
    if (found === null) {
      if (line.kind === "heading" || isLabel(line)) continue;
      return null;
    }
    if (found.kind === "saying" || found.bare) return null;
    if (!found.closingColon && (!found.immediate || codeLike)) return null;
    if (asksBefore(lines, i, sentences)) return null;
    if (lastAsks(lines.at(-1))) return null;
    return quote(sentence.plain);
  }
  return null;
}

interface Found extends Announced {
  /** The sentence ends with a colon: it leads into what comes next. */
  closingColon: boolean;
}

/** A colon that ends a clause (not `http://` or `10:30`); `：` is `:` once normalised. */
const CLAUSE_COLON = /:(?=\s|$|[\u0080-\uffff])/;

/** What a sentence announces: its opener before a colon, after it only the work's name ("task: **X**"). */
function announcement(sentence: Sentence, line: ClosingLine): Found | null {
  if (sentence.masked.length > MAX_SENTENCE_CHARS) return null;
  const s = normalise(sentence.masked);
  if (s === "" || handsBack(s) || conditionalOrLater(s)) return null;
  const colon = CLAUSE_COLON.exec(s);
  const head = colon === null ? s : s.slice(0, colon.index).trim();
  const after = colon === null ? "" : s.slice(colon.index + 1).trim();
  const found = inClauses(head, colon !== null && after === "");
  if (found === null) return null;
  if (after === "") return { ...found, closingColon: colon !== null };
  if (found.kind === "saying" || !namesWork(head, after, line)) return null;
  return { ...found, closingColon: false };
}

/** The opener of `head`, at its start or one of its last clauses ("You're right, I'll fix it"). */
function inClauses(head: string, colon: boolean): Announced | null {
  const found = announcedIn(head, colon);
  if (found !== null) return found;
  const starts: number[] = [];
  for (let i = head.length - 1; i > 0 && starts.length < MAX_CLAUSES; i--) {
    if (head[i - 1] === "," || head[i - 1] === ";") starts.push(i);
  }
  for (const start of starts.reverse()) {
    // After a topic ("この関数では、"), the clause says what that does.
    if (/は,$/.test(head.slice(0, start).trimEnd())) continue;
    const clause = head.slice(start).trim();
    const inClause = announcedIn(clause, colon);
    // A verb with no subject after other clauses may be the user's step.
    if (inClause !== null && !inClause.bare) return inClause;
  }
  return null;
}

/** What follows an announcement's colon names the work: emphasised, code, quoted, or a short label. */
function namesWork(head: string, after: string, line: ClosingLine): boolean {
  if (line.emphasised || NAMED_AFTER_COLON.test(line.raw)) return true;
  // After "the next task:", a task's name may close with a full stop.
  const named = TASK_WORDS.test(head) ? after.replace(/[.。!]$/, "") : after;
  return named.length <= 60 && !/[.!?。！？]/.test(named);
}

/** Words that name a unit of work, whose name a colon may introduce. */
const TASK_WORDS =
  /\b(?:task|step|phase|item|part|todo|ticket|issue|stage|milestone)s?\b|任务|任務|步骤|步驟|阶段|階段|タスク|ステップ|フェーズ|작업|단계|tarea|paso|fase|tarefa|passo|etapa|tâche|étape|aufgabe|schritt|phase|задач|шаг|этап/;

/** A line that ends with a colon, then one emphasised, code or quoted name. */
const NAMED_AFTER_COLON =
  /[:：]\s*(?:\*\*[^*]+\*\*|__[^_]+__|`[^`]+`|"[^"]+"|“[^”]+”|「[^」]+」)\s*[.。!]?\s*$/;

/** A prose line naming a section: short, ending with a colon ("Changes:"), or wholly emphasised. */
function isLabel(line: ClosingLine): boolean {
  return line.emphasised ||
    (line.plain.length <= 60 && /[:：]\s*$/.test(line.plain) &&
      !/[.!?。！？]\s/.test(line.plain));
}

/** Whether the sentence before the last asks or hands back ("Shall I commit? I'll wait."). */
function asksBefore(
  lines: readonly ClosingLine[],
  at: number,
  sentences: readonly Sentence[],
): boolean {
  const previous = sentences.at(-2);
  return previous === undefined ? lastAsks(lines[at - 1]) : asks(previous);
}

/** "Next: creating ..." (-ing, -ando, -iendo, -endo, -indo): work under way; an imperative is the user's step. */
const NEXT_LABEL_DOING =
  /^(?:next(?: up| step)?|siguiente(?: paso)?|a continuación|próximo(?: passo)?|a seguir|em seguida)\s*[:：-]\s*(?:[a-z]+ing|[\p{L}]+(?:ando|iendo|endo|indo))(?=[\s,.!]|$)/iu;

function nextLabel(line: ClosingLine): string | null {
  const plain = line.plain.trim();
  if (!NEXT_LABEL_DOING.test(plain)) return null;
  const s = normalise(line.masked);
  return conditionalOrLater(s) || handsBack(s) ? null : plain;
}

/** "... while I continue with the rest": the model carries on (not "while I keep waiting"). */
const WHILE_I_CONTINUE =
  /\bwhil(?:e|st) i(?:'m| am)?\s+(?:continue|continuing|keep|keeping|carry on|carrying on|proceed|proceeding|work on|working on|move on|moving on|finish|finishing)\b(?!\s+(?:to\s+)?(?:wait|waiting|monitor|monitoring|watch|watching|an eye)\b)/;

function continuesWhile(sentence: Sentence): boolean {
  const s = normalise(sentence.masked);
  return WHILE_I_CONTINUE.test(s) && !handsBack(s) && !conditionalOrLater(s);
}

function quote(text: string): string {
  const trimmed = text.trim();
  return trimmed.length > MAX_QUOTE_CHARS
    ? trimmed.slice(0, MAX_QUOTE_CHARS - 1) + "…"
    : trimmed;
}
