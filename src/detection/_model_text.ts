/**
 * What the model's words say about how a turn ended, judged from the text
 * alone: deterministic, no model, no network. Two questions share it:
 *
 * - Had the model already answered when it made its last call? A complete
 *   answer (a report, or a hand-back to the user) followed by a call whose
 *   result nobody read is bookkeeping, not a stall (`classify.ts`).
 * - Did the model's last words announce an immediate action of its own
 *   ("Let me run the tests now:") that never came (`announcement.ts`)?
 *
 * English first. The phrasings it knows are listed in docs/detection.md;
 * text in other languages is judged on its shape only (a closing colon,
 * a question mark, its length), never as an announcement.
 *
 * @module
 */

/** Most characters of a text that are looked at (its end). */
export const MAX_TEXT_CHARS = 16 * 1024;

/** Most characters of an announcement quoted back. */
export const MAX_QUOTE_CHARS = 200;

/**
 * A complete answer is at least this long, in characters of text, unless
 * it hands the turn back: a one-line remark is no report.
 */
const COMPLETE_MIN_CHARS = 400;

/** ... and spans at least this many non-empty lines. */
const COMPLETE_MIN_LINES = 3;

/** What the closing text says. */
export interface TextJudgement {
  /**
   * The closing sentence announces an immediate action of the model's own
   * (its words, cut to {@link MAX_QUOTE_CHARS}), or null.
   */
  announcement: string | null;
  /**
   * The closing sentence hands the turn back: a question, an offer, a
   * request to the user.
   */
  handsBack: boolean;
  /**
   * The text introduces what comes next: it ends with a colon (`:` or
   * `：`), or an announcement.
   */
  leadsOn: boolean;
  /**
   * A complete answer: a hand-back, or a report of some length, that does
   * not lead on to anything.
   */
  complete: boolean;
}

/**
 * Judges the model's closing text (the text it wrote last, joined).
 *
 * @param text The text; only its last {@link MAX_TEXT_CHARS} characters
 * are read.
 */
export function judgeClosingText(text: string): TextJudgement {
  const tail = text.length > MAX_TEXT_CHARS
    ? text.slice(text.length - MAX_TEXT_CHARS)
    : text;
  const lines = tail.split(/\r?\n/).map(plainLine).filter((l) => l !== "");
  const last = lines.at(-1) ?? "";
  const sentence = lastSentence(last);
  const announcement = announcedAction(last, sentence);
  const handsBack = handsTurnBack(sentence);
  const colon = /[:：]\s*$/.test(last);
  const leadsOn = announcement !== null || (colon && !handsBack);
  const substantial = tail.trim().length >= COMPLETE_MIN_CHARS &&
    lines.length >= COMPLETE_MIN_LINES;
  return {
    announcement,
    handsBack,
    leadsOn,
    complete: !leadsOn && (handsBack || substantial),
  };
}

/** A line without markdown decoration: bullets, headings, emphasis, marks. */
function plainLine(line: string): string {
  return line
    .replace(/^\s*(?:[-*+>]|\d+[.)]|#{1,6})\s+/, "")
    .replace(/[*_`~]+/g, "")
    .replace(/^[\s\p{Extended_Pictographic}\u2190-\u21ff\u2700-\u27bf]+/u, "")
    .trim();
}

/** The last sentence of a line (sentences end in `.`, `!` or `?`). */
function lastSentence(line: string): string {
  const parts = line.split(/(?<=[.!?])\s+(?=\S)/);
  return (parts.at(-1) ?? "").trim();
}

/**
 * Words that open a sentence without changing what it does ("Now let me",
 * "OK, I'll", "Great! Next, let's").
 */
const LEAD_IN =
  /^(?:(?:now|next|first|then|so|ok|okay|alright|all right|great|good|perfect|right|finally|and)\b[,!.:]?\s+)*/i;

/** Openers of a sentence that announces the model's own next action. */
const OPENER =
  /^(?:let me|let's|let us|i'll|i will|i'm going to|i am going to|i'm now going to|i'm about to|i am about to)\s+(?:now\s+|next\s+|also\s+|first\s+|then\s+|go ahead and\s+|quickly\s+)*([a-z][a-z-]*)/i;

/**
 * Verbs after an opener that announce no action: waiting, offering,
 * handing back ("Let me know", "I'll wait", "I'll be happy to").
 */
const NO_ACTION_VERBS: ReadonlySet<string> = new Set([
  "know",
  "wait",
  "be",
  "leave",
  "stop",
  "pause",
  "hold",
  "keep",
  "let",
  "await",
  "standby",
  "stand",
  "remain",
  "defer",
  "discuss",
  "talk",
  "hear",
  "assume",
  "not",
  "never",
  "no",
  "need",
  "have",
  "require",
]);

/**
 * Verbs of saying: "Let me summarize:" announces words to come, but "Let me
 * note that the build passed." already said them.
 */
const SAYING_VERBS: ReadonlySet<string> = new Set([
  "add",
  "clarify",
  "describe",
  "emphasize",
  "explain",
  "highlight",
  "mention",
  "note",
  "outline",
  "point",
  "recap",
  "reiterate",
  "remind",
  "say",
  "stress",
  "summarise",
  "summarize",
]);

/** Words that put the action off: not an immediate one. */
const DEFERRED =
  /\b(?:later|tomorrow|next time|another time|at some point|eventually|in the future|in (?:a|the) (?:next|following|future|later) (?:session|turn|step|pass|round)|afterwards?|(?:get|check|come) back)\b/i;

/**
 * Words that make a sentence conditional on something still to happen
 * (the user, or work running elsewhere): "once you confirm, I'll...",
 * "I'll summarise when it finishes", "if you'd like, I can...".
 */
const CONDITIONAL =
  /\b(?:once|when|whenever|after|until|unless|as soon as|in case|if (?:you|your|that|this|it's|it is|needed|necessary|desired|required|wanted|preferred|so|not|there's|any))\b/i;

/**
 * A "Next:" label followed by a present participle: the model's own work
 * under way ("Next: creating the admin pages"). An imperative after it is
 * a step for the user to take, and does not count.
 */
const NEXT_LABEL_DOING = /^next(?: up| step)?\s*[:：-]\s*([a-z]+ing)\b/i;

/** "... while I continue with the rest": the model says it carries on. */
const WHILE_I_CONTINUE =
  /\bwhile i(?:'m| am)?\s+(?:continue|continuing|proceed|proceeding|work on|working on|move on|moving on|finish|finishing)\b/i;

/**
 * The action the closing line announces, or null (see the module notes
 * for what counts).
 */
function announcedAction(line: string, sentence: string): string | null {
  if (sentence === "" || /\?\s*$/.test(sentence)) return null;
  if (handsTurnBack(sentence)) return null;
  if (CONDITIONAL.test(sentence) || DEFERRED.test(sentence)) return null;
  if (NEXT_LABEL_DOING.test(line)) return quote(line);
  // What the sentence announces it already holds after a colon.
  if (/[:：]\s*\S/.test(sentence)) return null;
  const body = sentence.replace(LEAD_IN, "");
  const opener = OPENER.exec(body);
  if (opener) {
    const verb = (opener[1] as string).toLowerCase();
    if (NO_ACTION_VERBS.has(verb)) return null;
    if (SAYING_VERBS.has(verb) && !/[:：]\s*$/.test(sentence)) return null;
    return quote(sentence);
  }
  if (WHILE_I_CONTINUE.test(sentence)) return quote(sentence);
  return null;
}

/**
 * Phrases that hand the turn back to the user: a request, an offer, a
 * question put as a statement.
 */
const HAND_BACK =
  /\b(?:let me know|tell me|please (?:confirm|review|check|let|run|try|test|share|provide|send)|feel free|would you like|do you want|if you(?:'d| would) like|shall i|should i|your call|up to you|which (?:one|option|approach) (?:would|do) you)\b/i;

/** Whether a sentence hands the turn back to the user. */
function handsTurnBack(sentence: string): boolean {
  return /\?\s*$/.test(sentence) || HAND_BACK.test(sentence);
}

/** `text` cut to {@link MAX_QUOTE_CHARS}, with an ellipsis when cut. */
function quote(text: string): string {
  const trimmed = text.trim();
  return trimmed.length > MAX_QUOTE_CHARS
    ? trimmed.slice(0, MAX_QUOTE_CHARS - 1) + "…"
    : trimmed;
}
