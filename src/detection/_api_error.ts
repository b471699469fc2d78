/**
 * Which API errors no nudge can fix (the request's own: a prompt too long,
 * login, billing, a usage limit), read from the client's error-to-message
 * function (2.0.76 to 2.1.332): `error` kind, HTTP status, or old texts.
 *
 * @module
 */

import type { AssistantEntry } from "../transcript/entry.ts";

/** Kinds of failure the request causes (`invalid_request`: a prompt or PDF too large, ...). */
const LASTING_CATEGORIES: ReadonlyMap<string, string> = new Map([
  ["invalid_request", "the request is invalid"],
  ["authentication_failed", "authentication"],
  ["billing_error", "billing"],
  ["model_not_found", "the model is not available"],
  ["oauth_org_not_allowed", "authentication"],
  ["account_on_hold", "the account is on hold"],
  ["verification_required", "verification is required"],
]);

/** Kinds of failure that pass: a second request may well go through. */
const PASSING_CATEGORIES = new Set(["server_error", "max_output_tokens"]);

/** Words saying a failure of a lasting kind may pass ("temporary", "usually transient"). */
const PASSING_WORDS = /\btemporary\b|\busually transient\b/i;

/** Openings of texts for failures no second request fixes, for releases without `error` (1.0.x). */
const LASTING_TEXTS: readonly (readonly [RegExp, string])[] = [
  [/^Prompt is too long\b/i, "the prompt is too long"],
  [/^Autocompact is thrashing\b/i, "compaction is thrashing"],
  [/^Request too large\b/i, "the request is too large"],
  [
    /^(?:PDF too large|PDF is password protected|The PDF file was not valid)\b/i,
    "a PDF cannot be read",
  ],
  [/^Image was too large\b/i, "an image is too large"],
  [/^(?:Credit balance is too low|Usage credits ran out)\b/i, "billing"],
  [
    /^(?:Invalid API key|Not logged in|Please run \/login|OAuth token (?:revoked|has expired)|Your (?:account|organization) does not have access|Failed to authenticate)\b/i,
    "authentication",
  ],
  [
    /^(?:There's an issue with the selected model|The model \S+ is not available|Claude Opus is not available)\b/i,
    "the model is not available",
  ],
  [/\bappears to violate our Usage Policy\b/i, "the request was refused"],
];

/** What {@link unfixableApiError} says of a usage or session limit. */
export const USAGE_LIMIT = "a usage limit";

/** Rate-limit texts that need the user, not time: extra usage or credits. */
const CREDITS_NEEDED = /\b(?:extra usage|usage credits)\b/i;

/** An HTTP status at the start of `API Error: <status> ...`. */
const TEXT_STATUS = /^(?:Please run \/login · )?API Error: (\d{3})\b/;

/** Why the API error of `entry` is one no nudge can fix, in a few words, or null when a retry may work. */
export function unfixableApiError(entry: AssistantEntry): string | null {
  if (entry.usageLimit) return USAGE_LIMIT;
  const text = entry.texts.join("\n").trim();
  const category = entry.apiErrorCategory ?? "";
  if (category === "rate_limit") {
    // A usage limit Claude Code found no words for: `No response requested.`
    if (text === "") return USAGE_LIMIT;
    return CREDITS_NEEDED.test(text) ? "billing" : null;
  }
  if (PASSING_CATEGORIES.has(category)) return null;
  const lasting = LASTING_CATEGORIES.get(category);
  if (lasting !== undefined) {
    return PASSING_WORDS.test(text) ? null : textMeaning(text) ?? lasting;
  }
  const status = entry.apiErrorStatus ?? statusInText(text);
  if (status !== null) return isLastingStatus(status) ? `HTTP ${status}` : null;
  return textMeaning(text);
}

function textMeaning(text: string): string | null {
  for (const [pattern, words] of LASTING_TEXTS) {
    if (pattern.test(text)) return words;
  }
  return null;
}

function statusInText(text: string): number | null {
  const match = TEXT_STATUS.exec(text);
  return match ? Number(match[1]) : null;
}

/** Whether a request that failed with `status` fails again: a 4xx but 408, 409, 429. */
function isLastingStatus(status: number): boolean {
  return status >= 400 && status < 500 &&
    status !== 408 && status !== 409 && status !== 429;
}
