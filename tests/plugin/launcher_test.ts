/**
 * The plugin's launcher (`hooks/launch.sh`), run as Claude Code runs it
 * (`sh <script>`), under every shell installed here: each of its three
 * paths (the release binary, Deno, neither), and every way it can fail,
 * which must allow the stop (exit 0) and never block it by accident.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { HOOK_PERMISSION_FLAGS } from "../../src/shared/permissions.ts";
import { TARGETS } from "../../.github/scripts/compile.ts";
import {
  hostTarget,
  listNames,
  PLUGIN_VERSION,
  REPO,
  scriptTest,
  type ScriptWorld,
  SHELLS,
} from "../support/plugin_scripts.ts";
import { RUNS_SH_SCRIPTS, skipWhere } from "../support/platform.ts";

const STALLED = join(REPO, "fixtures", "pending_tool_use_split_lines.jsonl");
const HEALTHY = join(REPO, "fixtures", "healthy_no_tools.jsonl");

/** A Stop payload for `transcript`. */
function stopPayload(transcript: string, session = "session-1"): string {
  return JSON.stringify({
    session_id: session,
    transcript_path: transcript,
    cwd: ".",
    hook_event_name: "Stop",
    stop_hook_active: false,
    permission_mode: "default",
  });
}

/** The one systemMessage line of a launcher notice. */
function notice(stdout: string): string {
  const lines = stdout.split("\n").filter((l) => l !== "");
  assert.equal(lines.length, 1, stdout);
  const parsed = JSON.parse(lines[0]!);
  assert.deepEqual(Object.keys(parsed), ["systemMessage"]);
  assert.match(parsed.systemMessage, /^stall-watch: /);
  return parsed.systemMessage;
}

/** A test per shell, skipped where the scripts cannot run. */
function launcherTest(
  name: string,
  fn: (world: ScriptWorld, shell: string) => Promise<void>,
): void {
  scriptTest("launch.sh", name, fn);
}

// ---- 1. The release binary ----------------------------------------------

launcherTest(
  "runs the release binary of this version in the project root, even when started in a sub-folder",
  async (world, shell) => {
    await world.standInBinary();
    const sub = join(world.project, "deep", "er");
    await Deno.mkdir(sub, { recursive: true });
    const result = await world.run("launch.sh", {
      shell,
      cwd: sub,
      stdin: '{"payload":1}',
    });
    assert.deepEqual(result, { code: 0, stdout: "", stderr: "" });
    assert.deepEqual(await world.recorded("binary-runs"), [
      `cwd=${world.project}`,
      "args=",
      'stdin={"payload":1}',
    ]);
  },
);

launcherTest(
  "passes a real block through: exit 2 and the report on stderr, stdout untouched",
  async (world, shell) => {
    const report = "stall_watch: 1 pending tool_use in t.jsonl\n" +
      "stall_watch recovery: do not end the turn yet\n";
    await world.standInBinary({ code: 2, stderr: report });
    const result = await world.run("launch.sh", { shell });
    assert.equal(result.code, 2);
    assert.equal(result.stderr, report);
    assert.equal(result.stdout, "");
  },
);

launcherTest(
  "passes stall-watch's other exit codes and its JSON output through",
  async (world, shell) => {
    const json = '{"decision":"block","reason":"r"}\n';
    await world.standInBinary({ code: 0, stdout: json });
    assert.deepEqual(await world.run("launch.sh", { shell }), {
      code: 0,
      stdout: json,
      stderr: "",
    });
    await world.standInBinary({
      code: 1,
      stderr: "stall_watch: Cannot parse hook input\n",
    });
    assert.deepEqual(await world.run("launch.sh", { shell }), {
      code: 1,
      stdout: "",
      stderr: "stall_watch: Cannot parse hook input\n",
    });
  },
);

launcherTest(
  "watch: runs the binary with `watch` only when the watchdog option is on",
  async (world, shell) => {
    await world.standInBinary();
    const off = await world.run("launch.sh", { shell, args: ["watch"] });
    assert.deepEqual(off, { code: 0, stdout: "", stderr: "" });
    const other = await world.run("launch.sh", {
      shell,
      args: ["watch"],
      env: { CLAUDE_PLUGIN_OPTION_WATCHDOG: "false" },
    });
    assert.deepEqual(other, { code: 0, stdout: "", stderr: "" });
    assert.deepEqual(await world.recorded("binary-runs"), []);
    const on = await world.run("launch.sh", {
      shell,
      args: ["watch"],
      env: { CLAUDE_PLUGIN_OPTION_WATCHDOG: "true" },
    });
    assert.equal(on.code, 0);
    assert.deepEqual((await world.recorded("binary-runs")).slice(0, 2), [
      `cwd=${world.project}`,
      "args=watch",
    ]);
  },
);

launcherTest(
  "a binary of another version, or one without its execute bit, is not run",
  async (world, shell) => {
    await world.standInBinary({ version: "0.0.1" });
    let result = await world.run("launch.sh", { shell });
    assert.equal(result.code, 0);
    assert.match(notice(result.stdout), /no Deno found/);
    await world.standInBinary({ notExecutable: true });
    result = await world.run("launch.sh", {
      shell,
      env: { CLAUDE_CODE_SESSION_ID: "session-2" },
    });
    assert.equal(result.code, 0);
    assert.match(notice(result.stdout), /no Deno found/);
    assert.deepEqual(await world.recorded("binary-runs"), []);
  },
);

// ---- 2. Deno ---------------------------------------------------------------

launcherTest(
  "without a binary, runs the plugin's source with Deno and exactly the release permission flags",
  async (world, shell) => {
    await world.linkSource();
    await world.fake(
      "deno",
      `for a in "$@"; do printf '%s\\n' "$a"; done > "${world.root}/deno-args"\n` +
        `printf '%s\\n' "$PWD" > "${world.root}/deno-cwd"`,
    );
    for (const args of [[], ["watch"]]) {
      const result = await world.run("launch.sh", {
        shell,
        args,
        env: { CLAUDE_PLUGIN_OPTION_WATCHDOG: "true" },
      });
      assert.deepEqual(result, { code: 0, stdout: "", stderr: "" });
      assert.deepEqual(await world.recorded("deno-args"), [
        "run",
        "--quiet",
        "--no-config",
        ...HOOK_PERMISSION_FLAGS,
        join(world.plugin, "main.ts"),
        ...args,
      ]);
      assert.deepEqual(await world.recorded("deno-cwd"), [world.project]);
    }
  },
);

launcherTest(
  "the Deno path blocks a stalled turn and allows a healthy one, state in the project's .claude",
  async (world, shell) => {
    await world.linkSource();
    await Deno.symlink(Deno.execPath(), join(world.fakes, "deno"));
    const sub = join(world.project, "sub");
    await Deno.mkdir(sub);
    const blocked = await world.run("launch.sh", {
      shell,
      cwd: sub,
      stdin: stopPayload(STALLED),
    });
    assert.equal(blocked.code, 2, blocked.stderr);
    assert.match(blocked.stderr, /^stall_watch: 1 pending tool_use in /);
    assert.match(blocked.stderr, /^stall_watch recovery: /m);
    assert.equal(blocked.stdout, "");
    assert.ok(
      (await listNames(join(world.project, ".claude", "stall_watch")))
        .includes("session-1.json"),
    );
    assert.deepEqual(await listNames(sub), []);
    const allowed = await world.run("launch.sh", {
      shell,
      stdin: stopPayload(HEALTHY, "session-2"),
    });
    assert.deepEqual(allowed, { code: 0, stdout: "", stderr: "" });
  },
);

launcherTest(
  "finds Deno in ~/.deno/bin when it is not on PATH",
  async (world, shell) => {
    await world.linkSource();
    await Deno.mkdir(join(world.home, ".deno", "bin"), { recursive: true });
    await Deno.writeTextFile(
      join(world.home, ".deno", "bin", "deno"),
      `#!/bin/sh\necho ran > "${world.root}/home-deno"\n`,
      { mode: 0o755 },
    );
    const result = await world.run("launch.sh", { shell });
    assert.deepEqual(result, { code: 0, stdout: "", stderr: "" });
    assert.deepEqual(await world.recorded("home-deno"), ["ran"]);
  },
);

// ---- 3. Neither ----------------------------------------------------------

launcherTest(
  "neither binary nor Deno: allows the stop and says what to install, once per session",
  async (world, shell) => {
    await world.linkSource();
    const first = await world.run("launch.sh", { shell });
    assert.equal(first.code, 0);
    assert.equal(first.stderr, "");
    const text = notice(first.stdout);
    assert.match(
      text,
      new RegExp(`stall-watch ${PLUGIN_VERSION} is installed but not running`),
    );
    assert.match(text, /install Deno 2/);
    const again = await world.run("launch.sh", { shell });
    assert.deepEqual(again, { code: 0, stdout: "", stderr: "" });
    const next = await world.run("launch.sh", {
      shell,
      env: { CLAUDE_CODE_SESSION_ID: "session-2" },
    });
    assert.equal(notice(next.stdout), text);
    // Without a data folder (or session id) there is no memory: every time.
    for (let i = 0; i < 2; i++) {
      const bare = await world.run("launch.sh", {
        shell,
        env: { CLAUDE_PLUGIN_DATA: undefined },
      });
      assert.equal(bare.code, 0);
      assert.equal(notice(bare.stdout), text);
    }
    // A watcher says nothing.
    const watch = await world.run("launch.sh", {
      shell,
      args: ["watch"],
      env: {
        CLAUDE_PLUGIN_OPTION_WATCHDOG: "true",
        CLAUDE_CODE_SESSION_ID: "s3",
      },
    });
    assert.deepEqual(watch, { code: 0, stdout: "", stderr: "" });
  },
);

// ---- Failure paths: each allows the stop -----------------------------------

launcherTest(
  "no CLAUDE_PROJECT_DIR, an empty one, a missing folder or a file: exit 0 with one line, nothing run",
  async (world, shell) => {
    await world.standInBinary({ code: 2, stderr: "stall_watch: block\n" });
    const file = join(world.root, "a-file");
    await Deno.writeTextFile(file, "");
    for (
      const dir of [undefined, "", join(world.root, "gone"), file]
    ) {
      const result = await world.run("launch.sh", {
        shell,
        env: { CLAUDE_PROJECT_DIR: dir },
      });
      assert.equal(result.code, 0, `${dir}: ${result.stderr}`);
      assert.equal(result.stderr, "");
      assert.match(notice(result.stdout), /CLAUDE_PROJECT_DIR/);
    }
    assert.deepEqual(await world.recorded("binary-runs"), []);
  },
);

launcherTest(
  "a project folder named with $(...), backquotes, quotes and a newline is entered as it is, never run or echoed",
  async (world, shell) => {
    await world.standInBinary();
    const hostile = join(
      world.root,
      "p $(touch PWNED) `touch PWNED2` \"'\n\u001b]52;c;x\u0007 -x",
    );
    await Deno.mkdir(hostile);
    const result = await world.run("launch.sh", {
      shell,
      env: { CLAUDE_PROJECT_DIR: hostile },
      cwd: world.root,
    });
    assert.deepEqual(result, { code: 0, stdout: "", stderr: "" });
    assert.equal(
      (await world.recorded("binary-runs"))[0],
      `cwd=${hostile.split("\n")[0]}`,
    );
    assert.deepEqual(
      (await listNames(world.root)).filter((n) => n.startsWith("PWNED")),
      [],
    );
    assert.deepEqual(await listNames(world.project), []);
    // Unreachable, it is not named in the line either.
    await Deno.remove(hostile);
    const gone = await world.run("launch.sh", {
      shell,
      env: { CLAUDE_PROJECT_DIR: hostile },
      cwd: world.root,
    });
    assert.equal(gone.code, 0);
    assert.ok(!gone.stdout.includes("PWNED"), gone.stdout);
    assert.ok(!gone.stdout.includes("\u001b"), gone.stdout);
  },
);

launcherTest(
  "an exit 2 that is not stall-watch's block (no report) allows the stop",
  async (world, shell) => {
    await world.standInBinary({ code: 2, stderr: "Segmentation fault\n" });
    let result = await world.run("launch.sh", { shell });
    assert.equal(result.code, 0);
    assert.equal(result.stderr, "");
    assert.match(notice(result.stdout), /exited 2 without a stall report/);
    await world.standInBinary({ code: 2 });
    result = await world.run("launch.sh", { shell });
    assert.equal(result.code, 0);
    // A Deno that exits 2 with an error of its own, the same.
    await Deno.remove(join(world.data, "bin"), { recursive: true });
    await world.linkSource();
    await world.fake(
      "deno",
      `echo "error: unexpected argument '--no-config' found" >&2; exit 2`,
    );
    result = await world.run("launch.sh", { shell });
    assert.equal(result.code, 0);
    assert.match(notice(result.stdout), /^stall-watch: deno exited 2 /);
  },
);

launcherTest(
  "no other exit code becomes a block: a program exiting 42 exits 1",
  async (world, shell) => {
    await world.standInBinary({ code: 42, stderr: "stall_watch: odd\n" });
    const result = await world.run("launch.sh", { shell });
    assert.equal(result.code, 1);
  },
);

launcherTest(
  "a broken plugin copy (lib.sh or the manifest missing, a hostile version) allows the stop",
  async (world, shell) => {
    await world.standInBinary({ code: 2, stderr: "stall_watch: block\n" });
    // No lib.sh: dash ends the subshell with 2, which must not block.
    await Deno.rename(
      join(world.plugin, "hooks", "lib.sh"),
      join(world.root, "lib.sh"),
    );
    let result = await world.run("launch.sh", { shell });
    assert.notEqual(result.code, 2);
    assert.equal(result.code, 0, result.stderr);
    assert.match(notice(result.stdout), /launcher failed/);
    await Deno.rename(
      join(world.root, "lib.sh"),
      join(world.plugin, "hooks", "lib.sh"),
    );
    // A version that is a path is no version: no binary path is formed.
    const manifest = join(world.plugin, ".claude-plugin", "plugin.json");
    for (const text of ['{"name": "x", "version": "../../../x"}', "not json"]) {
      await Deno.writeTextFile(manifest, text);
      result = await world.run("launch.sh", {
        shell,
        env: { CLAUDE_CODE_SESSION_ID: crypto.randomUUID() },
      });
      assert.equal(result.code, 0);
      assert.match(
        notice(result.stdout),
        /stall-watch \? is installed but not running/,
      );
    }
    await Deno.remove(manifest);
    result = await world.run("launch.sh", {
      shell,
      env: { CLAUDE_CODE_SESSION_ID: crypto.randomUUID() },
    });
    assert.equal(result.code, 0);
    assert.deepEqual(await world.recorded("binary-runs"), []);
  },
);

launcherTest(
  "the hooks.json commands: an empty or wrong CLAUDE_PLUGIN_ROOT allows the stop with one line",
  async (world, shell) => {
    const hooks = JSON.parse(
      await Deno.readTextFile(join(REPO, "hooks", "hooks.json")),
    ).hooks;
    const stop: string = hooks.Stop[0].hooks[0].command;
    assert.equal(hooks.SubagentStop[0].hooks[0].command, stop);
    for (const root of ["", join(world.root, "nowhere")]) {
      const out = await new Deno.Command(shell, {
        args: ["-c", stop],
        cwd: world.project,
        clearEnv: true,
        env: world.env({ CLAUDE_PLUGIN_ROOT: root }),
        stdin: "null",
        stdout: "piped",
        stderr: "piped",
      }).output();
      assert.equal(out.code, 0);
      assert.match(
        notice(new TextDecoder().decode(out.stdout)),
        /plugin folder was not found/,
      );
      for (
        const event of ["PostToolUse", "PostToolUseFailure", "SessionStart"]
      ) {
        const other = await new Deno.Command(shell, {
          args: ["-c", hooks[event][0].hooks[0].command],
          cwd: world.project,
          clearEnv: true,
          env: world.env({ CLAUDE_PLUGIN_ROOT: root }),
          stdin: "null",
          stdout: "piped",
          stderr: "piped",
        }).output();
        assert.equal(other.code, 0, event);
        assert.equal(other.stdout.length + other.stderr.length, 0, event);
      }
    }
    // With the plugin there, the same command runs the launcher.
    await world.standInBinary({ code: 2, stderr: "stall_watch: block\n" });
    const out = await new Deno.Command(shell, {
      args: ["-c", stop],
      cwd: world.project,
      clearEnv: true,
      env: world.env(),
      stdin: "null",
      stdout: "null",
      stderr: "piped",
    }).output();
    assert.equal(out.code, 2);
  },
);

// ---- Platforms -------------------------------------------------------------

launcherTest(
  "picks the release target from uname, for each of the five release targets",
  async (world, shell) => {
    const unames: [string, string | null][] = [
      ["Linux x86_64", "x86_64-unknown-linux-gnu"],
      ["Linux aarch64", "aarch64-unknown-linux-gnu"],
      ["Darwin x86_64", "x86_64-apple-darwin"],
      ["Darwin arm64", "aarch64-apple-darwin"],
      ["MINGW64_NT-10.0-19045 x86_64", "x86_64-pc-windows-msvc"],
      ["MSYS_NT-10.0-22631 x86_64", "x86_64-pc-windows-msvc"],
      ["FreeBSD amd64", null],
    ];
    assert.deepEqual(
      [...new Set(unames.map(([, t]) => t).filter((t) => t !== null))],
      TARGETS.map((t) => t.triple),
    );
    for (const target of TARGETS) {
      await world.standInBinary({
        target: target.triple,
        stderr: `stall_watch: ran ${target.binary} for ${target.triple}\n`,
        code: 2,
      });
    }
    for (const [uname, target] of unames) {
      await world.fake("uname", `echo '${uname}'`);
      const result = await world.run("launch.sh", {
        shell,
        env: { CLAUDE_CODE_SESSION_ID: uname },
      });
      if (target === null) {
        assert.equal(result.code, 0);
        assert.match(notice(result.stdout), /no release binary/);
        continue;
      }
      const binary = target.includes("windows")
        ? "stall-watch.exe"
        : "stall-watch";
      assert.equal(result.code, 2, uname);
      assert.equal(result.stderr, `stall_watch: ran ${binary} for ${target}\n`);
    }
    assert.equal(hostTarget(), Deno.build.target);
  },
);

Deno.test({
  ...skipWhere(
    "the plugin's scripts parse in every shell installed here",
    RUNS_SH_SCRIPTS,
  ),
  fn: async () => {
    for (const shell of SHELLS) {
      for (const script of ["launch.sh", "fetch.sh", "lib.sh"]) {
        const out = await new Deno.Command(shell, {
          args: ["-n", join(REPO, "hooks", script)],
          stderr: "piped",
        }).output();
        assert.equal(
          out.code,
          0,
          `${shell} ${script}: ${new TextDecoder().decode(out.stderr)}`,
        );
      }
    }
  },
});
