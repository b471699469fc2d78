/**
 * Smoke-tests a stall-watch executable the way a user first meets it:
 * `--version`, the hook on a stalled and a healthy bundled transcript in a
 * fresh project folder (exit 2, then exit 0 with nothing on stderr, state
 * only in `.claude`), `codex-stop` on a stalled Codex rollout (exit 2,
 * state only in `.codex`), and a usage error (exit 64).
 *
 *   deno run --allow-read --allow-write --allow-run --allow-env \
 *     .github/scripts/smoke_test.ts [--expect-version X.Y.Z] \
 *     (--target <triple>|host | --source | <program> [args...])
 *
 * `--target` tests `dist/<triple>/stall-watch[.exe]` from the compile
 * script; `--source` this checkout's `main.ts`, run by the Deno running the
 * script with the release permission flags (the Windows lane runs it so);
 * `<program> [args...]` starts any stall-watch (e.g.
 * `deno run <flags> main.ts`). The version defaults to `deno.json`'s.
 * Exit 0 when every check passes, 1 otherwise (each failure on stderr).
 *
 * @module
 */

import { join } from "node:path";
import { HOOK_PERMISSION_FLAGS } from "../../src/shared/permissions.ts";
import { SOURCE_RUN_FLAGS } from "../../src/install/hook_command.ts";
import { binaryPath, REPO_ROOT, resolveTargets } from "./compile.ts";

/** What a run printed and returned. */
interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

async function runIn(
  argv: readonly string[],
  cwd: string,
  args: string[],
  stdin = "",
): Promise<Run> {
  const [program, ...base] = argv;
  const env: Record<string, string> = { STALL_WATCH_LAG_WAIT_MS: "0" };
  for (
    const name of [
      "PATH",
      "HOME",
      "DENO_DIR",
      "TMPDIR",
      "TEMP",
      "TMP",
      "SYSTEMROOT",
      "USERPROFILE",
      "LOCALAPPDATA",
      // The Windows lane's (docs/development.md, "The Windows lane").
      "DENO_DISABLE_NODE_SHIM",
    ]
  ) {
    const value = Deno.env.get(name);
    if (value !== undefined) env[name] = value;
  }
  let child: Deno.ChildProcess;
  try {
    child = spawn(program as string, [...base, ...args], cwd, env);
  } catch (error) {
    return { code: -1, stdout: "", stderr: `cannot start: ${error}` };
  }
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode(stdin)).catch(() => {});
  await writer.close().catch(() => {});
  const output = await child.output();
  const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
  return {
    code: output.code,
    stdout: decode(output.stdout),
    stderr: decode(output.stderr),
  };
}

function spawn(
  program: string,
  args: string[],
  cwd: string,
  env: Record<string, string>,
): Deno.ChildProcess {
  return new Deno.Command(program, {
    args,
    cwd,
    env,
    clearEnv: true,
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
}

/**
 * Runs the smoke checks. Requires `--allow-run`, `--allow-read`,
 * `--allow-write` (a temporary project) and `--allow-env`.
 *
 * @param argv How to start stall-watch.
 * @param expectVersion The version `--version` must print.
 * @returns One line per failed check; empty when all passed.
 */
export async function smokeTest(
  argv: readonly string[],
  expectVersion: string,
): Promise<string[]> {
  const failures: string[] = [];
  const check = (ok: boolean, what: string, run?: Run) => {
    if (!ok) {
      failures.push(
        run ? `${what} (exit ${run.code}, stderr: ${run.stderr.trim()})` : what,
      );
    }
  };
  const project = await Deno.makeTempDir({ prefix: "stall-watch-smoke-" });
  try {
    const version = await runIn(argv, project, ["--version"]);
    check(
      version.code === 0 && version.stdout === `stall-watch ${expectVersion}\n`,
      `--version printed ${
        JSON.stringify(version.stdout)
      }, expected "stall-watch ${expectVersion}"`,
      version,
    );
    const payload = (fixture: string, session: string) =>
      JSON.stringify({
        session_id: session,
        transcript_path: join(REPO_ROOT, "fixtures", fixture),
        cwd: project,
        hook_event_name: "Stop",
        stop_hook_active: false,
      });
    const stalled = await runIn(
      argv,
      project,
      [],
      payload("pending_tool_use_split_lines.jsonl", "smoke"),
    );
    check(
      stalled.code === 2 &&
        stalled.stderr.includes("stall_watch: 1 pending tool_use in "),
      "the hook did not block a stalled transcript with exit 2",
      stalled,
    );
    const state = join(project, ".claude", "stall_watch", "smoke.json");
    check(
      await Deno.stat(state).then(() => true, () => false),
      `no session state at ${state}`,
    );
    const entries = [];
    for await (const entry of Deno.readDir(project)) entries.push(entry.name);
    check(
      entries.join() === ".claude",
      `expected only .claude in the project, found: ${
        entries.join(", ") || "nothing"
      }`,
    );
    const healthy = await runIn(
      argv,
      project,
      [],
      payload("healthy_text_after_results.jsonl", "smoke-healthy"),
    );
    check(
      healthy.code === 0 && healthy.stdout === "",
      "the hook did not allow a healthy transcript with exit 0",
      healthy,
    );
    // Nothing on stderr either: on a block it would reach the model (Deno
    // says when `--allow-run=codex` finds no codex, unless built --quiet).
    check(
      healthy.stderr === "",
      `a healthy stop wrote to stderr: ${JSON.stringify(healthy.stderr)}`,
    );
    failures.push(...await smokeCodexStop(argv));
    const usage = await runIn(argv, project, ["--no-such-option"]);
    check(
      usage.code === 64 && usage.stderr.trim().split("\n").length === 1,
      "an unknown option did not give one line and exit 64",
      usage,
    );
  } finally {
    await Deno.remove(project, { recursive: true }).catch(() => {});
  }
  return failures;
}

/**
 * `codex-stop` on a real Codex capture whose turn stalled: exit 2 with the
 * report, its state in `.codex` and nothing else in a fresh project.
 *
 * @returns One line per failed check.
 */
async function smokeCodexStop(argv: readonly string[]): Promise<string[]> {
  const project = await Deno.makeTempDir({ prefix: "stall-watch-smoke-" });
  try {
    const fixture = join(REPO_ROOT, "fixtures", "codex");
    const name = "codex_call_then_empty_reply";
    const [{ payload }] = JSON.parse(
      await Deno.readTextFile(join(fixture, `${name}.stops.json`)),
    );
    const stop = await runIn(
      argv,
      project,
      ["codex-stop"],
      JSON.stringify({
        ...payload,
        transcript_path: join(fixture, `${name}.jsonl`),
        cwd: project,
      }),
    );
    const failures: string[] = [];
    if (
      stop.code !== 2 ||
      !stop.stderr.startsWith("stall_watch: 1 missing follow-up in ")
    ) {
      failures.push(
        `codex-stop did not block a stalled Codex turn with exit 2 (exit ${stop.code}, stderr: ${stop.stderr.trim()})`,
      );
    }
    const state = join(
      project,
      ".codex",
      "stall_watch",
      `${payload.session_id}.json`,
    );
    if (!await Deno.stat(state).then(() => true, () => false)) {
      failures.push(`no Codex session state at ${state}`);
    }
    const entries = [];
    for await (const entry of Deno.readDir(project)) entries.push(entry.name);
    if (entries.join() !== ".codex") {
      failures.push(
        `expected only .codex after codex-stop, found: ${
          entries.join(", ") || "nothing"
        }`,
      );
    }
    return failures;
  } finally {
    await Deno.remove(project, { recursive: true }).catch(() => {});
  }
}

/** Parsed command line of the script. */
export interface SmokeArgs {
  /** The version `--version` must print; `null` for deno.json's. */
  expectVersion: string | null;
  /** How to start stall-watch. */
  argv: string[];
}

/**
 * Reads `[--expect-version X] (--target <triple>|host | --source |
 * <program> [args...])`. `--target` names a compiled binary under `dist/`
 * and `--source` this checkout's `main.ts` run by `denoPath`, so no path has
 * to pass through a shell (Windows paths would).
 *
 * @throws {RangeError} For a missing program or option value.
 */
export function parseSmokeArgs(
  args: readonly string[],
  hostTriple: string,
  denoPath: string,
): SmokeArgs {
  const rest = [...args];
  let expectVersion: string | null = null;
  if (rest[0] === "--expect-version") {
    expectVersion = rest[1] || null;
    if (expectVersion === null) {
      throw new RangeError("--expect-version needs a value");
    }
    rest.splice(0, 2);
  }
  if (rest[0] === "--target") {
    const [target] = resolveTargets(rest[1] ?? "", hostTriple);
    if (!target || rest.length !== 2) throw new RangeError("--target <triple>");
    return {
      expectVersion,
      argv: [binaryPath(join(REPO_ROOT, "dist"), target)],
    };
  }
  if (rest[0] === "--source") {
    if (rest.length !== 1) throw new RangeError("--source takes no program");
    return {
      expectVersion,
      argv: [
        denoPath,
        "run",
        ...SOURCE_RUN_FLAGS,
        ...HOOK_PERMISSION_FLAGS,
        join(REPO_ROOT, "main.ts"),
      ],
    };
  }
  if (rest.length === 0) throw new RangeError("no program to test");
  return { expectVersion, argv: rest };
}

if (import.meta.main) {
  let parsed: SmokeArgs;
  try {
    parsed = parseSmokeArgs(Deno.args, Deno.build.target, Deno.execPath());
  } catch (error) {
    console.error(`smoke: ${(error as Error).message}`);
    console.error(
      "usage: smoke_test.ts [--expect-version X.Y.Z] (--target <triple>|host | --source | <program> [args...])",
    );
    Deno.exit(64);
  }
  const expected = parsed.expectVersion ?? JSON.parse(
    await Deno.readTextFile(join(REPO_ROOT, "deno.json")),
  ).version as string;
  const failures = await smokeTest(parsed.argv, expected);
  for (const failure of failures) console.error(`smoke: FAIL ${failure}`);
  console.log(
    failures.length === 0
      ? `smoke: ${parsed.argv[0]} passed (stall-watch ${expected})`
      : `smoke: ${failures.length} check(s) failed`,
  );
  Deno.exit(failures.length === 0 ? 0 : 1);
}
