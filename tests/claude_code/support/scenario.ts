/**
 * What the tier's scenarios share: the Claude Code releases of the matrix
 * (each installed on first use; when one cannot be, its scenarios are
 * ignored), one registration per release, and assertions on hook runs, API
 * requests and how a session ended.
 *
 * @module
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import {
  compareReleases,
  findOrInstallClaude,
  selectedReleases,
} from "./claude_install.ts";
import { haveTmux, type TmuxPane } from "./tmux.ts";
import {
  empty,
  lastUserText,
  type RecordedRequest,
  type Reply,
  type Script,
} from "./fake_api.ts";
import { factsOf, has } from "./release_facts.ts";
import {
  type ClientFeature,
  featureSince,
  formatRelease,
} from "../../../src/claude_client/release.ts";
import {
  type ClaudeRun,
  type HookEvent,
  type HookRun,
  type PrintOptions,
  readJsonl,
  withClaudeSession,
} from "./session.ts";

/** One Claude Code release of the matrix, installed and runnable. */
export interface Client {
  /** The release, e.g. `2.1.47`. */
  release: string;
  /** Its executable (a native binary, or a Node.js `cli.js`). */
  path: string;
}

/**
 * The releases this run covers (`STALL_WATCH_CLAUDE_RELEASES`, default the
 * whole matrix), each with its executable, or null when it could not be
 * installed (its scenarios are then ignored).
 */
export const CLIENTS: readonly { release: string; path: string | null }[] =
  await (async () => {
    const list = [];
    for (
      const release of selectedReleases(
        Deno.env.get("STALL_WATCH_CLAUDE_RELEASES"),
      )
    ) {
      list.push({ release, path: await findOrInstallClaude(release) });
    }
    return list;
  })();

/** True when tmux runs here (interactive scenarios need it). */
export const TMUX: boolean = await haveTmux();

/**
 * `STALL_WATCH_TIER_NEEDS=1` runs the scenarios that wait for a fix too,
 * to try a fix against them before un-ignoring them.
 */
const RUN_NEEDS = Deno.env.get("STALL_WATCH_TIER_NEEDS") === "1";

/** Whether `client` is `release` or newer. */
export function since(client: Client, release: string): boolean {
  return compareReleases(client.release, release) >= 0;
}

/** The releases a scenario applies to, and why not to the others. */
export interface Applies {
  /** The first release it applies to. */
  since?: string;
  /** The first release it no longer applies to. */
  before?: string;
  /** Why the releases outside the range cannot run it (for the reader). */
  why: string;
}

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
  /** Only these releases (default: every release of the run). */
  applies?: Applies;
  /**
   * How many times it runs on each release: a timing-sensitive scenario
   * (a race between Claude Code's writes and a hook) must pass every time.
   */
  runs?: number;
}

/**
 * The releases that have `feature` (its floor in
 * `src/claude_client/release.ts`), with why the others cannot run it.
 */
export function appliesWhere(feature: ClientFeature, why: string): Applies {
  return { since: formatRelease(featureSince(feature)), why };
}

/** Whether `release` lies in the range of `applies`. */
export function appliesTo(release: string, applies?: Applies): boolean {
  if (!applies) return true;
  if (applies.since && compareReleases(release, applies.since) < 0) {
    return false;
  }
  return !(applies.before && compareReleases(release, applies.before) >= 0);
}

/**
 * Registers a scenario once per release of the run (and `runs` times on
 * each), named `[<release>] <name>`; ignored where the release could not be
 * installed or when `options.needs` names a fix not yet made.
 */
export function claudeTest(
  name: string,
  fn: (client: Client) => Promise<void>,
  options: ClaudeTestOptions = {},
): void {
  const runs = options.runs ?? 1;
  for (const { release, path } of CLIENTS) {
    if (!appliesTo(release, options.applies)) continue;
    for (let run = 1; run <= runs; run++) {
      Deno.test({
        name: `[${release}] ${name}${runs > 1 ? ` (run ${run}/${runs})` : ""}`,
        ignore: path === null ||
          (options.needs !== undefined && !RUN_NEEDS) ||
          (options.tmux === true && !TMUX),
        fn: () => fn({ release, path: path as string }),
      });
    }
  }
}

/**
 * The replies of a model that stays silent until Stop fires: once, or
 * twice where Claude Code retries an empty reply itself first, with its
 * hidden note (feature `empty_reply_retry`, 2.1.182+).
 */
export function silence(client: Client, reply: Reply = empty()): Reply[] {
  return has(client.release, "empty_reply_retry") ? [reply, reply] : [reply];
}

/** Waits until an interactive session shows its input line. */
export async function waitForInput(
  pane: TmuxPane,
  client: Client,
): Promise<string> {
  const mark = factsOf(client.release).promptMark;
  await pane.waitFor(new RegExp(`^${mark}\\s`, "m"));
  // The input line shows before Claude Code is done starting (2.1.214 then
  // sometimes ran a prompt's tool call without its PostToolUse hooks):
  // wait until the screen is still.
  return await pane.settled();
}

/**
 * The screen once a turn is over: after the `· done` line where the release
 * prints one, else once the screen stopped changing.
 */
export async function turnEndScreen(
  pane: TmuxPane,
  client: Client,
): Promise<string> {
  return factsOf(client.release).doneLine
    ? await pane.waitFor(/· done /)
    : await pane.settled();
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
  client: Client,
  options: ScenarioOptions,
): Promise<Outcome> {
  let outcome: Outcome | undefined;
  const { prompt, script, events, ...print } = options;
  await withClaudeSession(
    { claude: client.path, script, ...(events ? { events } : {}) },
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
