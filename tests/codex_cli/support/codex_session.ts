/**
 * One real Codex CLI session for a test: a throw-away HOME and CODEX_HOME,
 * a project folder, the fake Responses API, and a Stop hook registered
 * through a logging wrapper.
 *
 * Every run has the fake provider configured (`model_provider = "fake"`,
 * no retries), analytics and the update check off, and `--disable plugins`
 * (with plugins on, Codex looked up three public hosts). Where the machine
 * allows it, each run happens inside its own network and PID namespace
 * (`unshare -rn --pid --fork --kill-child`): only a loopback, on which a
 * relay (`netns_relay.ts`) reaches the fake API's Unix socket, and a kill
 * at the timeout ends every process of the run. Where it does not, the run
 * goes without, said once in one line.
 *
 * The wrapper is a few lines of `sh` that save each Stop run's payload, its
 * working directory and environment, a copy of the rollout as it was when
 * the hook started, and the inner hook's exit code, stdout and stderr, and
 * otherwise pass everything through unchanged, so Codex gets the inner
 * hook's real answer. The inner hook is a shell script the scenario sets
 * (`setStopHook`; by default it allows every stop).
 *
 * @module
 */

import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  type FakeResponsesApi,
  type Script,
  startFakeResponsesApi,
} from "./fake_responses.ts";
import {
  EVENT_WAIT_MS,
  RUN_WAIT_MS,
} from "../../claude_code/support/patience.ts";
import { denoDir, shellQuote } from "../../claude_code/support/session.ts";

export { shellQuote };

const RELAY = fileURLToPath(new URL("./netns_relay.ts", import.meta.url));

/** The API key the fake provider reads from the environment. */
export const FAKE_KEY = "sk-fake-stall-watch-test-0000000000";

/** One Stop hook run as the wrapper saw it. */
export interface StopRun {
  payload: Record<string, unknown>;
  /** The inner hook's exit code. */
  code: number;
  stdout: string;
  stderr: string;
  /** The directory the hook ran in. */
  cwd: string;
  /** The names of the variables in the hook's environment. */
  envNames: string[];
  /** The rollout as it was when the hook started (null: none named). */
  rolloutAtStart: string | null;
}

/** What one `codex exec` run printed and how it ended. */
export interface CodexRun {
  /** Exit code (null when killed at the timeout). */
  code: number | null;
  timedOut: boolean;
  elapsedMs: number;
  /** The `--json` events on stdout. */
  events: Record<string, unknown>[];
  stdout: string;
  stderr: string;
}

/** Options of {@link CodexSession.runExec}. */
export interface ExecOptions {
  /** Extra arguments, before the prompt. */
  args?: string[];
  /** Pass `--dangerously-bypass-hook-trust` (default true). */
  bypassHookTrust?: boolean;
  /** Pass `--ephemeral`: no rollout is written. */
  ephemeral?: boolean;
  /** Kill the run after this long (default {@link RUN_WAIT_MS}). */
  timeoutMs?: number;
  /** Extra environment for codex (and so for its hooks). */
  env?: Record<string, string>;
  /**
   * Asked every 100 ms while the run lasts: true kills it (SIGKILL), and
   * the run counts as timed out.
   */
  killWhen?: () => Promise<boolean>;
  /**
   * Asked every 100 ms while the run lasts: true sends codex SIGINT once,
   * as Ctrl-C in a terminal does (the run then ends by itself).
   */
  interruptWhen?: () => Promise<boolean>;
  /** Resume this session (`codex exec resume <id>`) instead of a new one. */
  resume?: string;
}

/** Options of {@link CodexSession.run}. */
export interface RunOptions {
  /** The folder to start in (default the project). */
  cwd?: string;
  timeoutMs?: number;
  env?: Record<string, string>;
  /** Text for stdin (default none). */
  stdin?: string;
  killWhen?: () => Promise<boolean>;
}

/** What any program run in the session's namespace did. */
export interface ProgramRun {
  code: number | null;
  timedOut: boolean;
  elapsedMs: number;
  stdout: string;
  stderr: string;
}

/** Everything one scenario works with. */
export interface CodexSession {
  /** The temp folder holding everything below. */
  root: string;
  home: string;
  /** `$CODEX_HOME` (`<home>/.codex`). */
  codexHome: string;
  /** The folder codex starts in. */
  project: string;
  api: FakeResponsesApi;
  /** The codex binary. */
  codex: string;
  /** The wrapper registered as the Stop hook. */
  hookCommand: string;
  /** The environment every run gets. */
  env: Record<string, string>;
  /** Whether runs happen inside a network namespace. */
  isolated: boolean;
  /** Sets the inner Stop hook: a `sh` script reading the payload on stdin. */
  setStopHook(script: string): Promise<void>;
  /** Appends TOML to `$CODEX_HOME/config.toml`. */
  addConfig(toml: string): Promise<void>;
  /** Runs `codex exec --json <prompt>` to its end (or the timeout). */
  runExec(prompt: string, options?: ExecOptions): Promise<CodexRun>;
  /** Runs any program with the session's environment, isolated like codex. */
  run(
    program: string,
    args: string[],
    options?: RunOptions,
  ): Promise<ProgramRun>;
  /** The Stop hook runs so far, in order (finished runs only). */
  stopRuns(): Promise<StopRun[]>;
  /** Every `rollout-*.jsonl` under `$CODEX_HOME/sessions`, in path order. */
  rollouts(): Promise<string[]>;
}

/** Options of {@link withCodexSession}. */
export interface CodexSessionOptions {
  /** The codex binary. */
  codex: string;
  /** Answers the conversation. */
  script: Script;
  /**
   * Register the logging wrapper as the Stop hook in
   * `$CODEX_HOME/hooks.json` (default true).
   */
  stopHook?: boolean;
}

/** The default inner Stop hook: allow every stop, say nothing. */
export const ALLOW_HOOK = "cat > /dev/null\nexit 0\n";

/**
 * An inner Stop hook that blocks the first stop of each turn with exit 2
 * and `reason` on stderr, and allows the re-stop (`stop_hook_active`).
 */
export function blockOnceHook(reason: string): string {
  return [
    'payload="$(cat)"',
    'case "$payload" in',
    "  *'\"stop_hook_active\":true'*) exit 0 ;;",
    "esac",
    `printf '%s' ${shellQuote(reason)} >&2`,
    "exit 2",
    "",
  ].join("\n");
}

let isolationProbe: Promise<string | null> | undefined;

/**
 * Why runs cannot get a network namespace here, or null when they can:
 * `unshare -rn --pid --fork --kill-child ip link set lo up` must work (a
 * user namespace, as root or where unprivileged ones are allowed). Said
 * once per process when they cannot.
 */
export function isolationProblem(): Promise<string | null> {
  isolationProbe ??= (async () => {
    let problem: string | null;
    try {
      const out = await new Deno.Command("unshare", {
        args: [...UNSHARE_ARGS, "ip", "link", "set", "lo", "up"],
        stdin: "null",
        stdout: "null",
        stderr: "piped",
        signal: AbortSignal.timeout(EVENT_WAIT_MS),
      }).output();
      problem = out.success
        ? null
        : new TextDecoder().decode(out.stderr).trim().split("\n")[0] ??
          `exit ${out.code}`;
    } catch (error) {
      problem = error instanceof Error ? error.message : String(error);
    }
    if (problem !== null) {
      console.error(
        `codex tier: no network namespace here (${problem}): codex runs without one, reaching only the fake API it is configured with`,
      );
    }
    return problem;
  })();
  return isolationProbe;
}

const UNSHARE_ARGS = ["-rn", "--pid", "--fork", "--kill-child"];

/** `$CODEX_HOME/config.toml` for the fake provider. */
export function providerConfig(baseUrl: string): string {
  return [
    'model = "gpt-fake"',
    'model_provider = "fake"',
    "check_for_update_on_startup = false",
    "",
    "[analytics]",
    "enabled = false",
    "",
    "[model_providers.fake]",
    'name = "fake"',
    `base_url = ${JSON.stringify(baseUrl)}`,
    'env_key = "FAKE_OPENAI_KEY"',
    'wire_api = "responses"',
    "request_max_retries = 0",
    "stream_max_retries = 0",
    "",
  ].join("\n");
}

/** The logging wrapper around the inner Stop hook. */
function wrapperScript(logDir: string, inner: string): string {
  return [
    "#!/bin/sh",
    "# Saves one Stop run for the test; passes the inner hook's answer on.",
    `log=${shellQuote(logDir)}`,
    'n="$(date +%s%N)-$$"',
    'cat > "$log/$n.payload"',
    'pwd > "$log/$n.cwd"',
    'env | sed -n "s/=.*//p" > "$log/$n.env"',
    `t="$(sed -n 's/.*"transcript_path": *"\\([^"]*\\)".*/\\1/p' "$log/$n.payload" | head -n 1)"`,
    '[ -n "$t" ] && cp "$t" "$log/$n.rollout" 2>/dev/null',
    `sh ${
      shellQuote(inner)
    } < "$log/$n.payload" > "$log/$n.stdout" 2> "$log/$n.stderr"`,
    "code=$?",
    'cat "$log/$n.stdout"',
    'cat "$log/$n.stderr" >&2',
    'echo "$code" > "$log/$n.code"',
    'exit "$code"',
    "",
  ].join("\n");
}

/**
 * A `sh` script that runs `argv` and sends it SIGINT once `flag` exists
 * (the interrupt of a terminal's Ctrl-C, without a terminal), then exits
 * with its exit code.
 */
function interruptScript(argv: string[], flag: string): string {
  return [
    `${argv.map(shellQuote).join(" ")} &`,
    "pid=$!",
    `while kill -0 "$pid" 2>/dev/null && [ ! -e ${shellQuote(flag)} ]; do`,
    "  sleep 0.1",
    "done",
    'kill -INT "$pid" 2>/dev/null',
    'wait "$pid"',
  ].join("\n");
}

/** Reads the wrapper's log, oldest run first (finished runs only). */
async function readStopRuns(logDir: string): Promise<StopRun[]> {
  const names: string[] = [];
  for await (const entry of Deno.readDir(logDir)) {
    if (entry.name.endsWith(".code")) names.push(entry.name.slice(0, -5));
  }
  names.sort();
  const runs: StopRun[] = [];
  for (const name of names) {
    const read = (ext: string) =>
      Deno.readTextFile(join(logDir, `${name}.${ext}`));
    let rollout: string | null = null;
    try {
      rollout = await read("rollout");
    } catch { /* no transcript named */ }
    runs.push({
      payload: JSON.parse(await read("payload")),
      code: Number((await read("code")).trim()),
      stdout: await read("stdout"),
      stderr: await read("stderr"),
      cwd: (await read("cwd")).trim(),
      envNames: (await read("env")).split("\n").filter((n) => n !== ""),
      rolloutAtStart: rollout,
    });
  }
  return runs;
}

async function listRollouts(dir: string): Promise<string[]> {
  const found: string[] = [];
  try {
    for await (const entry of Deno.readDir(dir)) {
      const path = join(dir, entry.name);
      if (entry.isDirectory) found.push(...await listRollouts(path));
      else if (/^rollout-.*\.jsonl$/.test(entry.name)) found.push(path);
    }
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  return found.sort();
}

/**
 * Runs `fn` with a fresh session and removes every temp file afterwards.
 * Requires `--allow-net=127.0.0.1`, `--allow-run`, `--allow-read`,
 * `--allow-write` and `--allow-env`.
 */
export async function withCodexSession(
  options: CodexSessionOptions,
  fn: (session: CodexSession) => Promise<void>,
): Promise<void> {
  const root = await Deno.makeTempDir({ prefix: "stall-watch-codex-" });
  const isolated = (await isolationProblem()) === null;
  const socketPath = join(root, "api.sock");
  const api = startFakeResponsesApi(options.script);
  const port = new URL(api.url).port;
  let bridge: Deno.ChildProcess | null = null;
  try {
    if (isolated) bridge = await startBridge(socketPath, port);
    const home = join(root, "home");
    const codexHome = join(home, ".codex");
    const project = join(root, "proj");
    const logDir = join(root, "hook-log");
    for (const dir of [codexHome, project, logDir, join(root, "tmp")]) {
      await Deno.mkdir(dir, { recursive: true });
    }
    const configPath = join(codexHome, "config.toml");
    await Deno.writeTextFile(configPath, providerConfig(api.baseUrl));
    const inner = join(root, "stop-hook.sh");
    await Deno.writeTextFile(inner, ALLOW_HOOK);
    const wrapper = join(root, "stop-wrapper.sh");
    await Deno.writeTextFile(wrapper, wrapperScript(logDir, inner), {
      mode: 0o755,
    });
    const hookCommand = shellQuote(wrapper);
    if (options.stopHook ?? true) {
      await Deno.writeTextFile(
        join(codexHome, "hooks.json"),
        JSON.stringify(
          {
            hooks: {
              Stop: [{
                hooks: [{ type: "command", command: hookCommand, timeout: 60 }],
              }],
            },
          },
          null,
          2,
        ),
      );
    }
    const env: Record<string, string> = {
      PATH: `${dirname(options.codex)}:${
        Deno.env.get("PATH") ?? "/usr/bin:/bin"
      }`,
      HOME: home,
      CODEX_HOME: codexHome,
      TMPDIR: join(root, "tmp"),
      LANG: "C.UTF-8",
      NO_COLOR: "1",
      FAKE_OPENAI_KEY: FAKE_KEY,
      DENO_DIR: await denoDir(),
      DENO_NO_UPDATE_CHECK: "1",
      NO_PROXY: "127.0.0.1,localhost",
    };
    const context: RunContext = { isolated, socketPath, port, project, env };
    const session: CodexSession = {
      root,
      home,
      codexHome,
      project,
      api,
      codex: options.codex,
      hookCommand,
      env,
      isolated,
      setStopHook: (script) => Deno.writeTextFile(inner, script),
      addConfig: (toml) =>
        Deno.writeTextFile(configPath, `\n${toml}\n`, { append: true }),
      runExec: async (prompt, exec = {}) => {
        const args = [
          "exec",
          ...(exec.resume === undefined ? [] : ["resume", exec.resume]),
          "--skip-git-repo-check",
          "--dangerously-bypass-approvals-and-sandbox",
          ...(exec.bypassHookTrust ?? true
            ? ["--dangerously-bypass-hook-trust"]
            : []),
          "--disable",
          "plugins",
          "--json",
          ...(exec.ephemeral ? ["--ephemeral"] : []),
          ...(exec.args ?? []),
          prompt,
        ];
        const runOptions: RunOptions = {
          cwd: project,
          timeoutMs: exec.timeoutMs ?? RUN_WAIT_MS,
          ...(exec.env ? { env: exec.env } : {}),
        };
        const interrupt = exec.interruptWhen;
        const flag = join(root, `interrupt-${crypto.randomUUID()}`);
        const killWhen = interrupt === undefined ? exec.killWhen : async () => {
          if (await interrupt()) await Deno.writeTextFile(flag, "");
          return await exec.killWhen?.() ?? false;
        };
        if (killWhen) runOptions.killWhen = killWhen;
        const run = interrupt === undefined
          ? await runProgram(context, options.codex, args, runOptions)
          : await runProgram(context, "sh", [
            "-c",
            interruptScript([options.codex, ...args], flag),
          ], runOptions);
        const events: Record<string, unknown>[] = [];
        for (const line of run.stdout.split("\n")) {
          if (!line.startsWith("{")) continue;
          try {
            events.push(JSON.parse(line));
          } catch { /* not an event */ }
        }
        return { ...run, events };
      },
      run: (program, args, runOptions = {}) =>
        runProgram(context, program, args, runOptions),
      stopRuns: () => readStopRuns(logDir),
      rollouts: () => listRollouts(join(codexHome, "sessions")),
    };

    await fn(session);
  } finally {
    if (bridge !== null) await stopBridge(bridge);
    await api.close();
    await Deno.remove(root, { recursive: true }).catch(() => {});
  }
}

/** Where and how a session runs its programs. */
interface RunContext {
  isolated: boolean;
  socketPath: string;
  port: string;
  project: string;
  env: Record<string, string>;
}

/** Runs one program in the session's namespace (or without one). */
async function runProgram(
  context: RunContext,
  program: string,
  args: string[],
  run: RunOptions,
): Promise<ProgramRun> {
  const { isolated, socketPath, port, project, env } = context;
  const argv = isolated
    ? [
      "unshare",
      ...UNSHARE_ARGS,
      Deno.execPath(),
      "run",
      "--quiet",
      "--no-config",
      "--no-lock",
      `--allow-net=127.0.0.1,unix:${socketPath}`,
      `--allow-read=${socketPath}`,
      `--allow-write=${socketPath}`,
      "--allow-run",
      RELAY,
      "inside",
      socketPath,
      port,
      program,
      ...args,
    ]
    : [program, ...args];
  const started = performance.now();
  const child = new Deno.Command(argv[0] as string, {
    args: argv.slice(1),
    cwd: run.cwd ?? project,
    clearEnv: true,
    env: { ...env, ...run.env },
    stdin: run.stdin === undefined ? "null" : "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  if (run.stdin !== undefined) {
    const writer = child.stdin.getWriter();
    await writer.write(new TextEncoder().encode(run.stdin));
    await writer.close();
  }
  let timedOut = false;
  const kill = () => {
    timedOut = true;
    try {
      child.kill("SIGKILL");
    } catch { /* already gone */ }
  };
  const timer = setTimeout(kill, run.timeoutMs ?? RUN_WAIT_MS);
  let watching = run.killWhen !== undefined;
  const watcher = (async () => {
    while (watching) {
      await new Promise((r) => setTimeout(r, 100));
      if (watching && await run.killWhen?.()) {
        kill();
        return;
      }
    }
  })();
  try {
    const out = await child.output();
    watching = false;
    await watcher;
    return {
      code: timedOut ? null : out.code,
      timedOut,
      elapsedMs: performance.now() - started,
      stdout: new TextDecoder().decode(out.stdout),
      stderr: new TextDecoder().decode(out.stderr),
    };
  } finally {
    watching = false;
    clearTimeout(timer);
  }
}

/**
 * Starts the host end of the bridge (see `netns_relay.ts`): the fake API
 * reached through `socket`. Resolves once it listens.
 */
async function startBridge(
  socket: string,
  port: string,
): Promise<Deno.ChildProcess> {
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--quiet",
      "--no-config",
      "--no-lock",
      `--allow-net=127.0.0.1,unix:${socket}`,
      `--allow-read=${socket}`,
      `--allow-write=${socket}`,
      RELAY,
      "outside",
      socket,
      port,
    ],
    stdin: "piped",
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let seen = "";
  while (!seen.includes("ready\n")) {
    const { value, done } = await reader.read();
    if (done) {
      await child.status;
      throw new Error("the relay to the fake API never started");
    }
    seen += value;
  }
  reader.releaseLock();
  return child;
}

/** Stops the host end of the bridge: its stdin closes, it exits. */
async function stopBridge(child: Deno.ChildProcess): Promise<void> {
  await child.stdin.close().catch(() => {});
  await child.stdout.cancel().catch(() => {});
  const timer = setTimeout(() => {
    try {
      child.kill("SIGKILL");
    } catch { /* gone */ }
  }, 5_000);
  await child.status;
  clearTimeout(timer);
}

/** Reads a JSONL text into its parsed lines (corrupt lines are skipped). */
export function parseJsonl(text: string): Record<string, unknown>[] {
  const lines: Record<string, unknown>[] = [];
  for (const line of text.split("\n")) {
    if (line.trim() === "") continue;
    try {
      lines.push(JSON.parse(line));
    } catch { /* partial line */ }
  }
  return lines;
}
