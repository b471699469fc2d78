/**
 * What the watchdog's real-client scenarios share: stall-watch's Stop hook
 * and its watcher registered with small windows (beside any other hooks a
 * scenario adds), an interactive session in tmux, and readings of what the
 * watcher did (its hook runs and its events in the session's event log).
 *
 * @module
 */

import { join } from "node:path";
import { lastUserText, type RecordedRequest, type Reply } from "./fake_api.ts";
import { type Client, waitForInput } from "./scenario.ts";
import {
  type ClaudeSession,
  type HookRun,
  readJsonl,
  withClaudeSession,
} from "./session.ts";
import type { TmuxPane } from "./tmux.ts";
import { EVENT_WAIT_MS } from "./patience.ts";

/** stall-watch's event log, relative to the project. */
export const EVENTS_LOG = ".claude/stall_watch/events.jsonl";

/** The watcher's idle window in these scenarios, so each takes seconds. */
export const IDLE_SECONDS = 2;

/** Hook groups by event, registered beside stall-watch's own. */
export type OtherHooks = Record<string, unknown[]>;

/**
 * Registers the Stop hook and the watcher (small windows) for `session`,
 * after `others` under each event.
 */
export async function registerWatch(
  session: ClaudeSession,
  env: Record<string, string> = {},
  others: OtherHooks = {},
): Promise<void> {
  const stop = { type: "command", command: session.hookCommand, timeout: 30 };
  const watch = {
    type: "command",
    command: `${session.hookCommand} watch`,
    timeout: 60,
    async: true,
    asyncRewake: true,
  };
  const hooks: OtherHooks = { ...others };
  const add = (event: string, group: unknown) =>
    hooks[event] = [...hooks[event] ?? [], group];
  add("Stop", { hooks: [stop] });
  add("PostToolUse", { matcher: "*", hooks: [watch] });
  add("PostToolUseFailure", { matcher: "*", hooks: [watch] });
  await Deno.writeTextFile(session.settingsPath, JSON.stringify({ hooks }));
  Object.assign(session.env, {
    STALL_WATCH_IDLE_SECONDS: String(IDLE_SECONDS),
    STALL_WATCH_WATCH_MAX_SECONDS: "40",
    STALL_WATCH_LOG_FILE: EVENTS_LOG,
    ...env,
  });
}

/** The watcher's runs (PostToolUse and PostToolUseFailure). */
export function watchRuns(runs: HookRun[]): HookRun[] {
  return runs.filter((r) => r.event.startsWith("PostToolUse"));
}

/** The `watch_finished` outcomes in the session's event log. */
export async function watchOutcomes(session: ClaudeSession): Promise<string[]> {
  const path = join(session.project, EVENTS_LOG);
  const events = await readJsonl(path).catch(() => []);
  return events.filter((e) => e.event === "watch_finished").map((e) =>
    String(e.outcome)
  );
}

/**
 * The watcher's events (started, detected, finished), then the order of the
 * main transcript's lines, for failure messages: Claude Code's write queue
 * can put lines on file late and out of order, and a failure under load
 * is read from what the CI log kept.
 */
export async function watchEvents(session: ClaudeSession): Promise<unknown[]> {
  const path = join(session.project, EVENTS_LOG);
  const events = await readJsonl(path).catch(() => []);
  const [main] = await session.transcripts();
  const lines = main === undefined
    ? "no transcript"
    : (await readJsonl(main).catch(() => [])).map(lineKind).join(" ");
  return [
    ...events.map((e) => [e.event, e.outcome ?? e.call_state ?? e.reason]),
    ["transcript lines", lines],
  ];
}

/** A transcript line in a word: `prompt`, `result`, `assistant:tool_use`, ... */
function lineKind(line: Record<string, unknown>): string {
  const message = line.message as { content?: unknown } | undefined;
  const content = message?.content;
  const blocks = Array.isArray(content)
    ? content.map((b) => String((b as { type?: unknown })?.type))
    : [];
  if (line.type === "user") {
    return blocks.includes("tool_result") ? "result" : "prompt";
  }
  if (line.type === "assistant") return `assistant:${blocks.join("+")}`;
  const attachment = line.attachment as { type?: unknown } | undefined;
  const sub = attachment?.type ?? line.subtype;
  return sub === undefined ? String(line.type) : `${line.type}:${sub}`;
}

/**
 * Whether the watcher finished: its `watch_finished` event is written before
 * the process exits, and the hook wrapper logs the run only after, so wait
 * for both before reading either.
 */
export function watcherDone(session: ClaudeSession): () => Promise<boolean> {
  return async () =>
    (await watchOutcomes(session)).length > 0 &&
    watchRuns(await session.hookRuns()).length > 0;
}

/** Main requests that carried a stall-watch nudge. */
export function nudged(session: ClaudeSession): RecordedRequest[] {
  return session.api.mainRequests().filter((r) =>
    /stall_watch/.test(lastUserText(r))
  );
}

/**
 * Runs `fn` with an interactive session in tmux, the watcher registered
 * (after `others`).
 */
export async function interactive(
  client: Client,
  script: (request: RecordedRequest, index: number) => Reply,
  allowedTools: string[],
  fn: (session: ClaudeSession, pane: TmuxPane) => Promise<void>,
  env: Record<string, string> = {},
  others: OtherHooks = {},
): Promise<void> {
  await withClaudeSession({ claude: client.path, script }, async (session) => {
    await registerWatch(session, env, others);
    // The classic permission prompt (auto mode asks differently offline).
    const args = ["--permission-mode", "default"];
    const pane = await session.startInteractive({ allowedTools, args });
    try {
      await waitForInput(pane, client);
      await fn(session, pane);
    } finally {
      await pane.close();
    }
  });
}

/** Waits until `condition` holds (at most `timeoutMs`), else throws. */
export async function waitUntil(
  condition: () => Promise<boolean>,
  what: string,
  timeoutMs = EVENT_WAIT_MS,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`never: ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
