/**
 * One real Claude Code session for a test: a throw-away HOME and
 * CLAUDE_CONFIG_DIR, a project folder, the fake Messages API, the stub MCP
 * server, and stall-watch registered as hooks through a logging wrapper.
 *
 * The wrapper is a few lines of `sh` that save each hook run's payload, exit
 * code, stdout and stderr for the test and otherwise pass everything through
 * unchanged, so the model receives the real hook's stderr. The hook itself
 * runs as `deno run --quiet` with exactly the release permission flags.
 *
 * @module
 */

import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { HOOK_PERMISSION_FLAGS } from "../../../src/shared/permissions.ts";
import { type FakeApi, type Script, startFakeApi } from "./fake_api.ts";
import { EVENT_WAIT_MS, RUN_WAIT_MS } from "./patience.ts";
import { startTmux, type TmuxPane } from "./tmux.ts";

/** Absolute path of stall-watch's `main.ts`. */
export const MAIN_TS: string = fileURLToPath(
  new URL("../../../main.ts", import.meta.url),
);

const MCP_STUB = fileURLToPath(new URL("./mcp_stub.ts", import.meta.url));

/** Hook events a scenario can register stall-watch under. */
export type HookEvent =
  | "Stop"
  | "SubagentStop"
  | "PreToolUse"
  | "PostToolUse"
  | "UserPromptSubmit";

/** One hook run as the wrapper saw it. */
export interface HookRun {
  /** `hook_event_name` of the payload. */
  event: string;
  payload: Record<string, unknown>;
  code: number;
  stdout: string;
  stderr: string;
  /**
   * The main transcript as it was when the hook started (only with
   * `STALL_WATCH_TIER_SNAPSHOTS=1` in the run's environment).
   */
  transcriptAtStart?: string;
}

/** What one `claude` run printed and how it ended. */
export interface ClaudeRun {
  /** Exit code (null when killed at the timeout). */
  code: number | null;
  timedOut: boolean;
  elapsedMs: number;
  /** The stream-json events (`-p --output-format stream-json`). */
  events: Record<string, unknown>[];
  /** The final `result` event, if any. */
  result: Record<string, unknown> | undefined;
  stdout: string;
  stderr: string;
}

/** Options of {@link ClaudeSession.runPrint}. */
export interface PrintOptions {
  /** Tools the run may use without asking (`--allowedTools`). */
  allowedTools?: string[];
  /** Pass the session's settings file with `--settings` (default true). */
  useSettings?: boolean;
  /** Extra arguments. */
  args?: string[];
  /** Kill the run after this long (default 60 s). */
  timeoutMs?: number;
  /** Extra environment for claude (and so for its hooks). */
  env?: Record<string, string>;
  /**
   * Asked every 100 ms while the run lasts: true kills it (SIGKILL), as a
   * crash or a closed terminal would, and the run counts as timed out.
   */
  killWhen?: () => Promise<boolean>;
}

/** Options of {@link ClaudeSession.startInteractive}. */
export interface InteractiveOptions {
  /** Tools the session may use without asking (`--allowedTools`). */
  allowedTools?: string[];
  /** Extra arguments. */
  args?: string[];
}

/** Everything one scenario works with. */
export interface ClaudeSession {
  /** The temp folder holding everything below. */
  root: string;
  home: string;
  configDir: string;
  /** The folder claude starts in (the project). */
  project: string;
  api: FakeApi;
  /** The settings file with the hook registration. */
  settingsPath: string;
  mcpConfigPath: string;
  /** The `command` string registered for the hook (wrapper). */
  hookCommand: string;
  /** The environment every claude run gets. */
  env: Record<string, string>;
  /** Runs `claude -p <prompt>` to its end (or the timeout). */
  runPrint(prompt: string, options?: PrintOptions): Promise<ClaudeRun>;
  /**
   * Starts an interactive `claude` in a tmux pane, the config seeded so no
   * onboarding, API key or trust dialog comes first.
   */
  startInteractive(options?: InteractiveOptions): Promise<TmuxPane>;
  /**
   * The hook runs so far, in order, without the SubagentStops of the
   * `Warmup` subagents 2.0.x starts at launch (see {@link isWarmupRun}).
   */
  hookRuns(): Promise<HookRun[]>;
  /** The SubagentStop runs of `Warmup` subagents so far. */
  warmupRuns(): Promise<HookRun[]>;
  /**
   * Every `*.jsonl` below the config dir's `projects`, the session's own
   * files first, subagents' after.
   */
  transcripts(): Promise<string[]>;
}

/** Options of {@link withClaudeSession}. */
export interface SessionOptions {
  /** The claude executable. */
  claude: string;
  /** Answers the main conversation. */
  script: Script;
  /** Events stall-watch is registered under (default Stop and SubagentStop). */
  events?: HookEvent[];
}

let denoDirCache: string | undefined;

/**
 * The Deno cache the test process uses, passed on so the hook needs neither
 * network nor a cold compile under the throw-away HOME.
 */
export async function denoDir(): Promise<string> {
  if (denoDirCache) return denoDirCache;
  const fromEnv = Deno.env.get("DENO_DIR");
  if (fromEnv) return denoDirCache = fromEnv;
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json"],
    stdout: "piped",
    stderr: "null",
    env: { NO_COLOR: "1" },
  }).output();
  return denoDirCache =
    JSON.parse(new TextDecoder().decode(out.stdout)).denoDir;
}

/** Single-quotes a word for `sh`. */
export function shellQuote(word: string): string {
  return `'${word.replaceAll("'", `'\\''`)}'`;
}

/** The logging wrapper around `deno run --quiet <flags> main.ts "$@"`. */
function wrapperScript(logDir: string): string {
  const hook = [
    Deno.execPath(),
    "run",
    "--quiet",
    ...HOOK_PERMISSION_FLAGS,
    MAIN_TS,
  ].map(shellQuote).join(" ");
  return [
    "#!/bin/sh",
    "# Saves one hook run for the test; passes everything through unchanged.",
    `log=${shellQuote(logDir)}`,
    'n="$(date +%s%N)-$$"',
    'cat > "$log/$n.payload"',
    "# On request, keep the transcript as the hook is about to see it.",
    'if [ -n "$STALL_WATCH_TIER_SNAPSHOTS" ]; then',
    `  t="$(sed -n 's/.*"transcript_path": *"\\([^"]*\\)".*/\\1/p' "$log/$n.payload" | head -n 1)"`,
    '  [ -n "$t" ] && cp "$t" "$log/$n.transcript" 2>/dev/null',
    "fi",
    `${hook} "$@" < "$log/$n.payload" > "$log/$n.stdout" 2> "$log/$n.stderr"`,
    "code=$?",
    'cat "$log/$n.stdout"',
    'cat "$log/$n.stderr" >&2',
    'echo "$code" > "$log/$n.code"',
    'exit "$code"',
    "",
  ].join("\n");
}

/** A settings object registering `command` under `events`. */
export function hookSettings(
  command: string,
  events: HookEvent[],
): Record<string, unknown> {
  const hooks: Record<string, unknown> = {};
  for (const event of events) {
    const handler = { type: "command", command, timeout: 30 };
    hooks[event] = [
      event === "PreToolUse" || event === "PostToolUse"
        ? { matcher: "*", hooks: [handler] }
        : { hooks: [handler] },
    ];
  }
  return { hooks };
}

/** Reads the wrapper's log, oldest run first (finished runs only). */
async function readHookRuns(logDir: string): Promise<HookRun[]> {
  const names: string[] = [];
  for await (const entry of Deno.readDir(logDir)) {
    if (entry.name.endsWith(".code")) names.push(entry.name.slice(0, -5));
  }
  names.sort();
  const runs: HookRun[] = [];
  for (const name of names) {
    const read = (ext: string) =>
      Deno.readTextFile(join(logDir, `${name}.${ext}`));
    const payload = JSON.parse(await read("payload"));
    const run: HookRun = {
      event: String(payload.hook_event_name),
      payload,
      code: Number((await read("code")).trim()),
      stdout: await read("stdout"),
      stderr: await read("stderr"),
    };
    try {
      run.transcriptAtStart = await read("transcript");
    } catch { /* no snapshot asked for */ }
    runs.push(run);
  }
  return runs;
}

/**
 * Whether a hook run is the SubagentStop of a `Warmup` subagent: 2.0.x
 * starts a few at launch, each with the one prompt `Warmup`, in any
 * session, so scenarios leave them out of what they count.
 */
export async function isWarmupRun(run: HookRun): Promise<boolean> {
  const path = run.payload.agent_transcript_path;
  if (run.event !== "SubagentStop" || typeof path !== "string") return false;
  try {
    const [first] = await readJsonl(path);
    const message = first?.message as { content?: unknown } | undefined;
    return first?.type === "user" && message?.content === "Warmup";
  } catch {
    return false;
  }
}

async function listJsonl(dir: string): Promise<string[]> {
  const found: string[] = [];
  try {
    for await (const entry of Deno.readDir(dir)) {
      const path = join(dir, entry.name);
      if (entry.isDirectory) found.push(...await listJsonl(path));
      else if (entry.name.endsWith(".jsonl")) found.push(path);
    }
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  return found;
}

/** Reads a JSONL file into its parsed lines (corrupt lines are skipped). */
export async function readJsonl(
  path: string,
): Promise<Record<string, unknown>[]> {
  const lines = (await Deno.readTextFile(path)).split("\n");
  const entries: Record<string, unknown>[] = [];
  for (const line of lines) {
    if (line.trim() === "") continue;
    try {
      entries.push(JSON.parse(line));
    } catch { /* partial line */ }
  }
  return entries;
}

/**
 * The environment of every claude run: nothing inherited but PATH and the
 * Deno cache, no proxy variables, loopback only.
 */
function claudeEnv(
  root: string,
  home: string,
  configDir: string,
  apiUrl: string,
  deno: string,
): Record<string, string> {
  return {
    PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
    HOME: home,
    CLAUDE_CONFIG_DIR: configDir,
    TMPDIR: join(root, "tmp"),
    LANG: "C.UTF-8",
    DENO_DIR: deno,
    DENO_NO_UPDATE_CHECK: "1",
    NO_COLOR: "1",
    ANTHROPIC_BASE_URL: apiUrl,
    ANTHROPIC_API_KEY: "sk-ant-api03-stall-watch-test-key-0000000000",
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    // Offline, the official marketplace's install fails at start-up, and
    // its notice takes the status line a block's notice is read from.
    CLAUDE_CODE_DISABLE_OFFICIAL_MARKETPLACE_AUTOINSTALL: "1",
    DISABLE_AUTOUPDATER: "1",
    DISABLE_TELEMETRY: "1",
    DISABLE_ERROR_REPORTING: "1",
    CLAUDE_CODE_MAX_RETRIES: "1",
    // Wait for the MCP stub before the first request: from about 2.1.145 on
    // Claude Code connects in the background, and on a busy machine the
    // model's first call could find no such tool yet.
    MCP_CONNECTION_NONBLOCKING: "false",
    // 2.1.47 asks the model for a suggested next prompt after a turn, in a
    // request that offers tools like the conversation's own.
    CLAUDE_CODE_ENABLE_PROMPT_SUGGESTION: "false",
    NO_PROXY: "127.0.0.1,localhost",
  };
}

/**
 * Runs `fn` with a fresh session and removes every temp file afterwards.
 * Requires `--allow-net`, `--allow-run`, `--allow-read`, `--allow-write` and
 * `--allow-env`.
 */
export async function withClaudeSession(
  options: SessionOptions,
  fn: (session: ClaudeSession) => Promise<void>,
): Promise<void> {
  const api = startFakeApi(options.script);
  const root = await Deno.makeTempDir({ prefix: "stall-watch-claude-" });
  try {
    const home = join(root, "home");
    const configDir = join(home, ".claude");
    const project = join(root, "proj");
    const logDir = join(root, "hook-log");
    for (const dir of [configDir, project, logDir, join(root, "tmp")]) {
      await Deno.mkdir(dir, { recursive: true });
    }
    const wrapper = join(root, "stall-watch-hook");
    await Deno.writeTextFile(wrapper, wrapperScript(logDir), { mode: 0o755 });
    const hookCommand = shellQuote(wrapper);
    const settingsPath = join(root, "settings.json");
    await Deno.writeTextFile(
      settingsPath,
      JSON.stringify(
        hookSettings(hookCommand, options.events ?? ["Stop", "SubagentStop"]),
        null,
        2,
      ),
    );
    const mcpConfigPath = join(root, "mcp.json");
    const mcpReady = join(root, "mcp-ready");
    await Deno.writeTextFile(
      mcpConfigPath,
      JSON.stringify({
        mcpServers: {
          stub: {
            type: "stdio",
            command: Deno.execPath(),
            args: [
              "run",
              "--quiet",
              "--no-prompt",
              `--allow-write=${mcpReady}`,
              MCP_STUB,
              mcpReady,
            ],
          },
        },
      }),
    );
    const env = claudeEnv(root, home, configDir, api.url, await denoDir());
    const session: ClaudeSession = {
      root,
      home,
      configDir,
      project,
      api,
      settingsPath,
      mcpConfigPath,
      hookCommand,
      env,
      runPrint: (prompt, printOptions = {}) =>
        runPrint(options.claude, session, prompt, printOptions),
      startInteractive: async (interactive = {}) => {
        await seedInteractiveConfig(session);
        const pane = await startTmux([
          options.claude,
          ...commonArgs(session, true, interactive.allowedTools),
          ...(interactive.args ?? []),
        ], {
          dir: root,
          cwd: project,
          env,
          received: (text) =>
            api.mainRequests().some((request) =>
              JSON.stringify(request.body?.messages ?? []).includes(text)
            ),
        });
        // Interactive sessions connect MCP servers in the background: a
        // prompt typed before the stub listed its tools finds none.
        await waitForFile(mcpReady, pane);
        return pane;
      },
      hookRuns: async () => {
        const runs = await readHookRuns(logDir);
        const warm = await Promise.all(runs.map(isWarmupRun));
        return runs.filter((_, i) => !warm[i]);
      },
      warmupRuns: async () => {
        const runs = await readHookRuns(logDir);
        const warm = await Promise.all(runs.map(isWarmupRun));
        return runs.filter((_, i) => warm[i]);
      },
      transcripts: async () => {
        const files = await listJsonl(join(configDir, "projects"));
        // Subagents' files: `<session>/subagents/agent-<id>.jsonl`, or, in
        // 2.0.x, `agent-<id>.jsonl` beside the session's own file.
        const rank = (p: string) =>
          p.split("/").length * 2 + (/\/agent-[^/]*$/.test(p) ? 1 : 0);
        return files.sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
      },
    };
    await fn(session);
    // stall-watch must let every warmup subagent stop, silently.
    for (const warmup of await session.warmupRuns()) {
      if (warmup.code !== 0 || warmup.stdout !== "" || warmup.stderr !== "") {
        throw new Error(
          `a Warmup SubagentStop was not allowed silently: exit ${warmup.code}, ${warmup.stdout}${warmup.stderr}`,
        );
      }
    }
  } finally {
    await api.close();
    await removeSettled(root);
  }
}

/** Waits until `path` exists; closes `pane` if it never does. */
async function waitForFile(path: string, pane: TmuxPane): Promise<void> {
  const deadline = Date.now() + EVENT_WAIT_MS;
  while (Date.now() < deadline) {
    try {
      await Deno.lstat(path);
      return;
    } catch { /* not yet */ }
    await new Promise((r) => setTimeout(r, 100));
  }
  const screen = await pane.screen().catch(() => "");
  await pane.close();
  throw new Error(`the MCP stub never listed its tools:\n${screen}`);
}

/**
 * Writes `$CLAUDE_CONFIG_DIR/.claude.json` as a user who finished onboarding,
 * approved the API key and trusts the project: without it the first screen
 * is the onboarding, which tries to reach Anthropic's servers.
 */
async function seedInteractiveConfig(session: ClaudeSession): Promise<void> {
  const key = session.env.ANTHROPIC_API_KEY ?? "";
  await Deno.writeTextFile(
    join(session.configDir, ".claude.json"),
    JSON.stringify({
      hasCompletedOnboarding: true,
      theme: "dark",
      numStartups: 1,
      customApiKeyResponses: { approved: [key.slice(-20)], rejected: [] },
      projects: {
        [session.project]: {
          hasTrustDialogAccepted: true,
          hasCompletedProjectOnboarding: true,
          allowedTools: [],
        },
      },
    }),
  );
}

/** The arguments every run shares: MCP config, settings, allowed tools. */
function commonArgs(
  session: ClaudeSession,
  useSettings: boolean,
  allowedTools: string[] | undefined,
): string[] {
  const args = ["--mcp-config", session.mcpConfigPath, "--strict-mcp-config"];
  if (useSettings) args.push("--settings", session.settingsPath);
  if (allowedTools?.length) args.push("--allowedTools", allowedTools.join(","));
  return args;
}

/**
 * Removes `dir` and makes sure it stays gone: Claude Code can still be
 * writing its MCP logs under HOME for a moment after it was told to go.
 */
async function removeSettled(dir: string): Promise<void> {
  const deadline = Date.now() + 5_000;
  let lastError: unknown;
  while (Date.now() < deadline) {
    try {
      await Deno.remove(dir, { recursive: true });
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) lastError = error;
    }
    await new Promise((r) => setTimeout(r, 250));
    try {
      await Deno.lstat(dir);
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) return;
    }
  }
  throw new Error(
    `Cannot remove ${dir}: ${lastError ?? "it keeps coming back"}`,
  );
}

async function runPrint(
  claude: string,
  session: ClaudeSession,
  prompt: string,
  options: PrintOptions,
): Promise<ClaudeRun> {
  const args = [
    "-p",
    prompt,
    "--output-format",
    "stream-json",
    "--verbose",
    "--mcp-config",
    session.mcpConfigPath,
    "--strict-mcp-config",
  ];
  if (options.useSettings ?? true) {
    args.push("--settings", session.settingsPath);
  }
  if (options.allowedTools?.length) {
    args.push("--allowedTools", options.allowedTools.join(","));
  }
  args.push(...(options.args ?? []));
  const started = performance.now();
  const child = new Deno.Command(claude, {
    args,
    cwd: session.project,
    clearEnv: true,
    env: { ...session.env, ...options.env },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  let timedOut = false;
  const kill = () => {
    timedOut = true;
    try {
      child.kill("SIGKILL");
    } catch { /* already gone */ }
  };
  const timeoutMs = options.timeoutMs ?? RUN_WAIT_MS;
  const timer = setTimeout(kill, timeoutMs);
  let watching = options.killWhen !== undefined;
  const watcher = (async () => {
    while (watching) {
      await new Promise((r) => setTimeout(r, 100));
      if (watching && await options.killWhen?.()) {
        kill();
        return;
      }
    }
  })();
  try {
    const out = await child.output();
    watching = false;
    await watcher;
    const stdout = new TextDecoder().decode(out.stdout);
    const events: Record<string, unknown>[] = [];
    for (const line of stdout.split("\n")) {
      if (!line.startsWith("{")) continue;
      try {
        events.push(JSON.parse(line));
      } catch { /* not an event */ }
    }
    return {
      code: timedOut ? null : out.code,
      timedOut,
      elapsedMs: performance.now() - started,
      events,
      result: events.findLast((e) => e.type === "result"),
      stdout,
      stderr: new TextDecoder().decode(out.stderr),
    };
  } finally {
    watching = false;
    clearTimeout(timer);
  }
}
