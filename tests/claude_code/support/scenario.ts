/**
 * What the tier's scenarios share: the Claude Code executable (installed on
 * first use; when it cannot be, every scenario is ignored), and assertions
 * on hook runs, API requests and how a session ended.
 *
 * @module
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { findOrInstallClaude } from "./claude_install.ts";
import { haveTmux } from "./tmux.ts";
import { lastUserText, type RecordedRequest, type Script } from "./fake_api.ts";
import {
  type ClaudeRun,
  type HookEvent,
  type HookRun,
  type PrintOptions,
  readJsonl,
  withClaudeSession,
} from "./session.ts";

/** The pinned Claude Code executable, or null (then the tier is skipped). */
export const CLAUDE: string | null = await findOrInstallClaude();

/** True when tmux runs here (interactive scenarios need it). */
export const TMUX: boolean = await haveTmux();

/**
 * `STALL_WATCH_TIER_NEEDS=1` runs the scenarios that wait for a fix too,
 * to try a fix against them before un-ignoring them.
 */
const RUN_NEEDS = Deno.env.get("STALL_WATCH_TIER_NEEDS") === "1";

/** Options of {@link claudeTest}. */
export interface ClaudeTestOptions {
  /** The scenario drives an interactive session in tmux. */
  tmux?: boolean;
  /**
   * A fix the scenario waits for: the test asserts the correct behaviour and
   * is ignored until the fix lands (say which, for the reader), unless
   * `STALL_WATCH_TIER_NEEDS=1`.
   */
  needs?: string;
}

/**
 * Registers a scenario that needs the real CLI; ignored when it is missing
 * or when `options.needs` names a fix not yet made.
 */
export function claudeTest(
  name: string,
  fn: (claude: string) => Promise<void>,
  options: ClaudeTestOptions = {},
): void {
  Deno.test({
    name,
    ignore: CLAUDE === null ||
      (options.needs !== undefined && !RUN_NEEDS) ||
      (options.tmux === true && !TMUX),
    fn: () => fn(CLAUDE as string),
  });
}

/** What a finished scenario left behind (its temp folder is gone). */
export interface Outcome {
  run: ClaudeRun;
  hookRuns: HookRun[];
  /** Main-conversation requests, in order. */
  requests: RecordedRequest[];
  /** Main requests past the end of the script. */
  overruns: number;
  /** The command string the hook is registered with. */
  hookCommand: string;
  /** The transcripts written, main file first, with their text. */
  transcripts: { path: string; text: string }[];
  /** The session's temp folder (for replacing it by a placeholder). */
  root: string;
  /** stall-watch's event log, when the run turned it on (`.claude/stall_watch/events.jsonl`). */
  events: Record<string, unknown>[];
}

/** Options of {@link runScenario}. */
export interface ScenarioOptions extends PrintOptions {
  prompt: string;
  script: Script;
  /** Events stall-watch is registered under (default Stop, SubagentStop). */
  events?: HookEvent[];
}

/** Runs one `claude -p` session and returns what it left behind. */
export async function runScenario(
  claude: string,
  options: ScenarioOptions,
): Promise<Outcome> {
  let outcome: Outcome | undefined;
  const { prompt, script, events, ...print } = options;
  await withClaudeSession(
    { claude, script, ...(events ? { events } : {}) },
    async (session) => {
      const run = await session.runPrint(prompt, print);
      const transcripts = [];
      for (const path of await session.transcripts()) {
        transcripts.push({ path, text: await Deno.readTextFile(path) });
      }
      let events: Record<string, unknown>[] = [];
      try {
        events = await readJsonl(
          join(session.project, ".claude", "stall_watch", "events.jsonl"),
        );
      } catch (error) {
        if (!(error instanceof Deno.errors.NotFound)) throw error;
      }
      outcome = {
        events,
        run,
        hookRuns: await session.hookRuns(),
        requests: session.api.mainRequests(),
        overruns: session.api.overruns,
        hookCommand: session.hookCommand,
        transcripts,
        root: session.root,
      };
    },
  );
  return outcome as unknown as Outcome;
}

/** The runs of one hook event. */
export function runsOf(runs: HookRun[], event: string): HookRun[] {
  return runs.filter((run) => run.event === event);
}

/** Exit codes of the runs of `event`, in order. */
export function codesOf(runs: HookRun[], event: string): number[] {
  return runsOf(runs, event).map((run) => run.code);
}

/**
 * Asserts the run ended normally: exit 0, a `success` result with `text` as
 * the final answer, and no scripted reply left unused or missing.
 */
export function assertAnswered(outcome: Outcome, text: string): void {
  const { run } = outcome;
  assert.equal(run.timedOut, false, `claude still running: ${run.stderr}`);
  assert.equal(run.code, 0, `claude exited ${run.code}: ${run.stderr}`);
  assert.equal(run.result?.subtype, "success", JSON.stringify(run.result));
  assert.equal(run.result?.is_error, false);
  assert.equal(run.result?.result, text);
  assert.equal(outcome.overruns, 0, "the model was asked more than scripted");
}

/** The text Claude Code feeds the model for a block by `command`. */
export function feedbackText(command: string, stderr: string): string {
  return `Stop hook feedback:\n[${command}]: ${stderr}`;
}

/** Asserts `request` carries the block's stderr, whole, as Stop hook feedback. */
export function assertCarriesFeedback(
  outcome: Outcome,
  request: RecordedRequest | undefined,
  block: HookRun,
): void {
  assert.ok(request, "no request after the block");
  const last = lastUserText(request);
  assert.ok(
    last.includes(feedbackText(outcome.hookCommand, block.stderr)),
    `the request after the block lacks the hook's stderr:\n${
      last.slice(-3000)
    }`,
  );
}

/** Asserts no main request carries any Stop hook feedback. */
export function assertNoFeedback(outcome: Outcome): void {
  for (const request of outcome.requests) {
    assert.doesNotMatch(lastUserText(request), /Stop hook feedback/);
  }
}

/** The first `stall_watch: <count> <label> in` line's label, or null. */
export function blockLabel(stderr: string): string | null {
  return /^stall_watch: \d+ (.+?) in /m.exec(stderr)?.[1] ?? null;
}
