/**
 * The `doctor` report: the checklist for a person, one JSON line for scripts.
 *
 * @module
 */

import {
  escapeTerminal,
  type OwnSequence,
  ownSequence,
} from "../shared/terminal_text.ts";

/** How a check came out. `fail` makes the set-up unhealthy; `warn` does not. */
type CheckStatus = "ok" | "warn" | "fail";

/** One line of the checklist, with what to do about a failure or warning. */
export interface CheckResult {
  status: CheckStatus;
  text: string;
  fix?: string;
}

const COLORS: Readonly<Record<CheckStatus, OwnSequence>> = {
  ok: "\x1b[32m",
  warn: "\x1b[33m",
  fail: "\x1b[31m",
};

/** The report: a line per check, its fix below, then a summary; `color` paints the status words. */
export function renderDoctorReport(
  results: readonly CheckResult[],
  color: boolean,
): string {
  const lines = ["stall-watch doctor"];
  for (const result of results) {
    const word = result.status === "fail" ? "FAIL" : result.status;
    const padded = word.padEnd(4);
    const status = color
      ? `${ownSequence(COLORS[result.status])}${padded}${
        ownSequence("\x1b[0m")
      }`
      : padded;
    // Texts quote commands and paths from settings files: one line each.
    lines.push(`  ${status}  ${escapeTerminal(result.text)}`);
    if (result.fix) lines.push(`        fix: ${escapeTerminal(result.fix)}`);
  }
  const fails = results.filter((r) => r.status === "fail").length;
  const warns = results.filter((r) => r.status === "warn").length;
  const plural = (n: number, word: string) =>
    `${n} ${word}${n === 1 ? "" : "s"}`;
  lines.push(
    fails === 0 && warns === 0
      ? "All checks passed."
      : `${plural(fails, "problem")}, ${plural(warns, "warning")}.`,
  );
  return lines.join("\n") + "\n";
}

/** The report as one JSON object on one line: `healthy` (no failure), the counts, every check. */
export function renderDoctorJson(
  results: readonly CheckResult[],
  version: string,
): string {
  const fails = results.filter((r) => r.status === "fail").length;
  const warns = results.filter((r) => r.status === "warn").length;
  return JSON.stringify({
    version,
    healthy: fails === 0,
    problems: fails,
    warnings: warns,
    checks: results.map(({ status, text, fix }) => ({
      status,
      text,
      fix: fix ?? null,
    })),
  }) + "\n";
}
