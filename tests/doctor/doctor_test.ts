/**
 * `doctor`: a healthy set-up passes; each broken piece fails with a fix
 * (exit 1); warnings alone keep exit 0. In process with real files, the
 * pure checks on hand-made facts, and as a process under the release flags.
 */

import assert from "node:assert/strict";
import { clientChecks } from "../../src/doctor/_doctor_client.ts";
import type { MarkerLook } from "../../src/decision/kill_switch.ts";
import { sanitizeTerminalStream } from "../../src/shared/terminal_text.ts";
import type { CheckResult } from "../../src/doctor/doctor_report.ts";
import { projectSlug } from "../../src/transcript/transcript_files.ts";
import { FIXTURES_DIR } from "../support/cases.ts";
import { join } from "node:path";
import { main } from "../../src/cli.ts";
import {
  doctorChecks,
  type DoctorFacts,
} from "../../src/doctor/doctor_checks.ts";
import { renderDoctorReport } from "../../src/doctor/doctor_report.ts";
import { selfInvocation } from "../../src/install/hook_command.ts";
import { type FakeIO, fakeIO } from "../support/fake_io.ts";
import { runStallWatch } from "../support/hook_process.ts";
import { tempFixture, tempProject } from "../support/temp_project.ts";

const posix = Deno.build.os !== "windows";
/** Settings file names as doctor prints them (native separators). */
const PROJECT = join(".claude", "settings.json");
const LOCAL = join(".claude", "settings.local.json");

interface Setup {
  /** The project doctor runs in (the fixture's own folder holds it and `bin`). */
  project: string;
  /** A folder beside the project, for files that are not in it. */
  outside: string;
  bin: string;
  /** `bin` as handlers hold it (forward slashes on Windows). */
  shown: string;
  io(env?: Record<string, string>): FakeIO;
  doctor(env?: Record<string, string>): Promise<{ code: number; out: string }>;
  write(name: string, text: string): Promise<void>;
}

/**
 * A project with a stand-in stall-watch executable beside it, in
 * `<dir>/../bin` (outside the project, as an installed one is); disposal
 * removes both.
 */
function tempSetup(): Promise<Setup & AsyncDisposable> {
  return tempFixture(async (root): Promise<Setup> => {
    const dir = join(root, "project");
    await Deno.mkdir(dir);
    const bin = join(root, "bin", posix ? "stall-watch" : "stall-watch.exe");
    await Deno.mkdir(join(root, "bin"));
    await Deno.writeTextFile(bin, "#!/bin/sh\n");
    if (posix) await Deno.chmod(bin, 0o755);
    // The user's settings live elsewhere so the machine's own never leak in.
    const base = { CLAUDE_CONFIG_DIR: join(dir, "user-config") };
    const io = (env: Record<string, string> = {}) => ({
      ...fakeIO({ cwd: dir, env: { ...base, ...env } }),
      execPath: bin,
    });
    return {
      project: dir,
      outside: root,
      bin,
      shown: bin.replaceAll("\\", "/"),
      io,
      async doctor(env) {
        const fake = io(env);
        const code = await main(["doctor"], fake);
        assert.deepEqual(fake.stderr, []);
        return { code, out: fake.stdout.join("") };
      },
      async write(name, text) {
        await Deno.mkdir(join(dir, ".claude"), { recursive: true });
        await Deno.writeTextFile(join(dir, ".claude", name), text);
      },
    };
  });
}

function lines(out: string, status: string): string[] {
  return out.split("\n").filter((l) => l.startsWith(`  ${status}`));
}

Deno.test("doctor passes a fresh install and lists where stall-watch is registered", async () => {
  await using s = await tempSetup();
  assert.equal(await main(["install", "--subagents", "--watch"], s.io()), 0);
  const { code, out } = await s.doctor();
  assert.equal(code, 0, out);
  assert.deepEqual(lines(out, "FAIL"), []);
  assert.match(out, /All checks passed\.\n$/);
  assert.ok(
    out.includes(
      `  ok    Stop in ${LOCAL}: ${s.shown} (timeout 30 s)\n`,
    ),
    out,
  );
  assert.ok(
    out.includes(
      `PostToolUse in ${LOCAL}: ${s.shown} watch (timeout 660 s)`,
    ),
  );
  assert.ok(
    out.includes(
      `PostToolUseFailure in ${LOCAL}: ${s.shown} watch (timeout 660 s)`,
    ),
    "failed tool calls are watched too",
  );
  assert.match(
    out,
    /ok {4}watchdog: a hung tool call is Claude Code's to end \(MCP idle limit 300 s network, 1800 s stdio\)/,
    "the timer comparison",
  );
  assert.ok(
    !out.includes("\x1b["),
    "no colour when stdout is not a terminal",
  );
});

Deno.test("doctor fails when nothing is registered, and says to install", async () => {
  await using s = await tempSetup();
  const { code, out } = await s.doctor();
  assert.equal(code, 1);
  assert.ok(out.includes(
    "  FAIL  stall-watch is not registered for Stop in any settings file\n" +
      '        fix: run "stall-watch install" in the project root\n',
  ));
  assert.match(out, /1 problem, 0 warnings\.\n$/);
  assert.equal(
    await Deno.lstat(join(s.project, ".claude")).then(() => true, () => false),
    false,
    "the writability probe left nothing behind",
  );
});

Deno.test("doctor flags a missing or non-executable program with the fix", async () => {
  await using s = await tempSetup();
  assert.equal(await main(["install"], s.io()), 0);
  if (posix) {
    await Deno.chmod(s.bin, 0o644);
    const { code, out } = await s.doctor();
    assert.equal(code, 1);
    assert.deepEqual(lines(out, "FAIL"), [
      `  FAIL  Stop in ${LOCAL}: ${s.shown} is not executable`,
    ]);
    assert.ok(out.includes(`        fix: chmod +x ${s.bin}\n`));
  }
  await Deno.remove(s.bin);
  const { code, out } = await s.doctor();
  assert.equal(code, 1);
  assert.deepEqual(lines(out, "FAIL"), [
    `  FAIL  Stop in ${LOCAL}: ${s.shown} does not exist`,
  ]);
});

Deno.test("doctor flags a settings file that is not strict JSON", async () => {
  await using s = await tempSetup();
  assert.equal(await main(["install"], s.io()), 0);
  await s.write("settings.json", '{ "model": "opus", }');
  const { code, out } = await s.doctor();
  assert.equal(code, 1);
  assert.deepEqual(lines(out, "FAIL"), [
    `  FAIL  ${PROJECT} is not strict JSON (1:20: property name expected (a trailing comma?)); ` +
    "Claude Code ignores such a file: fix it first",
  ]);
});

Deno.test("doctor flags an if, a missing timeout, a relative path and duplicates", async () => {
  await using s = await tempSetup();
  await s.write(
    "settings.json",
    JSON.stringify({
      hooks: {
        Stop: [{
          hooks: [{ type: "command", command: s.shown, if: "Bash(*)" }],
        }],
        SubagentStop: [{
          hooks: [{
            type: "command",
            command: "bin/stall-watch",
            timeout: 30,
          }],
        }],
      },
    }),
  );
  assert.equal(await main(["install", "--scope", "local"], s.io()), 0);
  const { code, out } = await s.doctor();
  assert.equal(code, 1);
  const fails = lines(out, "FAIL").map((l) => l.slice(8));
  assert.deepEqual(fails, [
    `Stop in ${PROJECT}: no "timeout" (Claude Code would wait up to 600 s)`,
    `Stop in ${PROJECT}: has an "if", so it never runs`,
    `SubagentStop in ${PROJECT}: bin/stall-watch is not an absolute path`,
    `Stop runs stall-watch 2 times (different commands in ${PROJECT}, ` +
    `${LOCAL}), so each stall is nudged 2 times`,
  ]);
  assert.ok(out.includes('        fix: remove the "if" field\n'));
  assert.ok(out.includes(
    '        fix: keep one: "stall-watch uninstall --scope <scope>" for the others\n',
  ));
  assert.ok(out.includes(
    `        fix: run "stall-watch install --scope project --subagents"\n`,
  ));
});

Deno.test("doctor accepts the same command in two files (Claude Code runs it once)", async () => {
  await using s = await tempSetup();
  assert.equal(await main(["install", "--scope", "project"], s.io()), 0);
  assert.equal(await main(["install", "--scope", "local"], s.io()), 0);
  const { code, out } = await s.doctor();
  assert.equal(code, 0, out);
  assert.ok(out.includes("  ok    no duplicate registrations\n"));
});

Deno.test("doctor fails on a nudge template slot stall-watch does not fill", async () => {
  await using s = await tempSetup();
  assert.equal(await main(["install"], s.io()), 0);
  // The operator's own config: only it may set recovery texts.
  const own = join(s.outside, "own.jsonc");
  await Deno.writeTextFile(
    own,
    '{ "recovery": { "nudges": { "empty_tool_result": "Read {file_path} again" } } }\n',
  );
  const { code, out } = await s.doctor({ STALL_WATCH_CONFIG: own });
  assert.equal(code, 1, out);
  assert.deepEqual(lines(out, "FAIL").map((l) => l.slice(8)), [
    `config: ${own}:1:50: "recovery.nudges.empty_tool_result" ` +
    "has {file_path}, which is not filled in (slots: {tool_name}, {tool_input}, " +
    "{tool_use_id}, {line_number}, {announcement}); using the preset's text",
  ]);
});

Deno.test("doctor warns that a project config's recovery texts are set aside, and fails on nothing for them", async () => {
  await using s = await tempSetup();
  assert.equal(await main(["install"], s.io()), 0);
  await s.write(
    "stall-watch.jsonc",
    '{ "recovery": { "footer": "Never stop.", "nudges": { "empty_tool_result": "Read {file_path} again" } } }\n',
  );
  const { code, out } = await s.doctor();
  assert.equal(code, 0, out);
  assert.deepEqual(lines(out, "FAIL"), []);
  assert.deepEqual(lines(out, "warn").map((l) => l.slice(8)), [
    "config: .claude/stall-watch.jsonc:1:27: the project's config may not set " +
    "recovery texts (recovery.footer, recovery.nudges.empty_tool_result): they " +
    'would reach the model as stall-watch\'s own words; using the "default" ' +
    "preset's (set them in your own config, named by STALL_WATCH_CONFIG " +
    "outside the project)",
  ]);
});

Deno.test("doctor reports config problems as a failure and the kill switch as a warning", async () => {
  await using s = await tempSetup();
  assert.equal(await main(["install"], s.io()), 0);
  await s.write("stall-watch.jsonc", '{ "max_retries": "many" }\n');
  const broken = await s.doctor();
  assert.equal(broken.code, 1);
  assert.deepEqual(lines(broken.out, "FAIL").map((l) => l.slice(8)), [
    'config: .claude/stall-watch.jsonc:1:18: "max_retries" must be an integer, got string',
  ]);
  await s.write(
    "stall-watch.jsonc",
    '{ "max_retries": 2, "kill_switch": true }\n',
  );
  const off = await s.doctor();
  assert.equal(off.code, 0, "a deliberate kill switch is not a failure");
  assert.deepEqual(lines(off.out, "warn"), [
    "  warn  kill switch is on (config kill_switch): every stop is allowed",
  ]);
  assert.ok(off.out.includes(
    '        fix: set "kill_switch": false in .claude/stall-watch.jsonc\n',
  ));
  assert.ok(
    off.out.includes("  ok    config: .claude/stall-watch.jsonc is valid\n"),
  );
  const env = await s.doctor({ STALL_WATCH_DISABLED: "yes" });
  assert.ok(env.out.includes("        fix: unset STALL_WATCH_DISABLED\n"));
});

Deno.test("doctor lists every config problem, none cut off", async () => {
  await using s = await tempSetup();
  assert.equal(await main(["install"], s.io()), 0);
  await s.write(
    "stall-watch.jsonc",
    '{ "max_retries": "many", "cooldown_seconds": -1, "colour": 1, "log": 5 }\n',
  );
  const { code, out } = await s.doctor();
  assert.equal(code, 1);
  const fails = lines(out, "FAIL");
  assert.equal(fails.length, 4, out);
  assert.ok(fails.every((l) => l.startsWith("  FAIL  config: ")), out);
  assert.doesNotMatch(out, /more\)/);
});

Deno.test("doctor names a handler under an event called toString as doing nothing useful there, never with Object's own method", async () => {
  await using s = await tempSetup();
  const hook = `cd "$CLAUDE_PROJECT_DIR" && ${s.shown}`;
  await s.write(
    "settings.json",
    JSON.stringify({
      hooks: {
        Stop: [{ hooks: [{ type: "command", command: hook, timeout: 30 }] }],
        toString: [{ hooks: [{ type: "command", command: hook }] }],
      },
    }),
  );
  const { code, out } = await s.doctor();
  assert.equal(code, 1, out);
  assert.deepEqual(lines(out, "FAIL").map((l) => l.slice(8)), [
    `toString in ${PROJECT}: runs the stall-watch hook, which is for Stop and SubagentStop only (it does nothing useful there)`,
  ]);
  assert.doesNotMatch(out, /native code/);
});

Deno.test("doctor fails a stall-watch handler under an event it is not for, with the fix", async () => {
  await using s = await tempSetup();
  const hook = `cd "$CLAUDE_PROJECT_DIR" && ${s.shown}`;
  const entry = (command: string) => [{
    hooks: [{ type: "command", command, timeout: 30 }],
  }];
  await s.write(
    "settings.json",
    JSON.stringify({
      hooks: {
        Stop: entry(hook),
        PreToolUse: entry(hook),
        UserPromptSubmit: entry(hook),
        SessionStart: entry(`${hook} watch`),
        PostToolUseFailure: [{
          hooks: [{
            type: "command",
            command: `${hook} watch`,
            timeout: 700,
            async: true,
            asyncRewake: true,
          }],
        }],
        PostToolUse: entry(hook),
      },
    }),
  );
  const { code, out } = await s.doctor();
  assert.equal(code, 1, out);
  assert.deepEqual(lines(out, "FAIL").map((l) => l.slice(8)), [
    `PreToolUse in ${PROJECT}: runs the stall-watch hook, which is for Stop and SubagentStop only (the call about to run is unanswered there by nature, so it would block every tool call)`,
    `UserPromptSubmit in ${PROJECT}: runs the stall-watch hook, which is for Stop and SubagentStop only (it would block every prompt)`,
    `SessionStart in ${PROJECT}: runs "stall-watch watch", which is for PostToolUse and PostToolUseFailure only (it does nothing useful there)`,
    `PostToolUse in ${PROJECT}: runs the stall-watch hook, which is for Stop and SubagentStop only (it does nothing useful there)`,
  ]);
  assert.ok(out.includes(
    `        fix: remove that entry from "hooks.PreToolUse" in ${PROJECT}, then run "stall-watch install --scope project"\n`,
  ));
  assert.ok(out.includes(
    `        fix: remove that entry from "hooks.SessionStart" in ${PROJECT}, then run "stall-watch install --scope project --watch"\n`,
  ));
});

Deno.test("doctor fails a hooks value Claude Code cannot read, as install refuses it", async () => {
  await using s = await tempSetup();
  for (
    const [text, problem] of [
      ['{"hooks": []}', 'a "hooks" value that is not an object (an array)'],
      [
        '{"hooks":{"Stop":[{"hooks":"x"}]}}',
        'a "hooks.Stop[0].hooks" value that is not an array (a string)',
      ],
      [
        '{"hooks":{"PreToolUse":[{"matcher":"*"}]}}',
        'a "hooks.PreToolUse[0].hooks" value that is not an array (missing)',
      ],
      [
        '{"hooks":{"Stop":[{"hooks":[7]}]}}',
        'a "hooks.Stop[0].hooks[0]" value that is not an object (a number)',
      ],
    ] as const
  ) {
    await s.write("settings.json", text);
    const { code, out } = await s.doctor();
    assert.equal(code, 1, out);
    assert.ok(
      lines(out, "FAIL").includes(`  FAIL  ${PROJECT} has ${problem}`),
      `${text}\n${out}`,
    );
    const install = s.io();
    assert.equal(
      await main(["install", "--scope", "project", "--dry-run"], install),
      1,
      text,
    );
    assert.deepEqual(install.stderr, [
      `stall-watch: Cannot install: ${PROJECT} has ${problem}; fix it by hand first\n`,
    ]);
  }
});

Deno.test("doctor --json gives every check with its status and fix, and the same exit code", async () => {
  await using s = await tempSetup();
  const fake = s.io();
  assert.equal(await main(["doctor", "--json"], fake), 1);
  const out = fake.stdout.join("");
  assert.equal(out.split("\n").length, 2, "one line");
  const report = JSON.parse(out);
  assert.equal(report.healthy, false);
  assert.equal(report.problems, 1);
  assert.deepEqual(
    report.checks.find((c: { status: string }) => c.status === "fail"),
    {
      status: "fail",
      text: "stall-watch is not registered for Stop in any settings file",
      fix: 'run "stall-watch install" in the project root',
    },
  );
  assert.equal(await main(["install"], s.io()), 0);
  const healthy = s.io();
  assert.equal(await main(["doctor", "--json"], healthy), 0);
  const ok = JSON.parse(healthy.stdout.join(""));
  assert.equal(ok.healthy, true);
  assert.ok(ok.checks.every((c: { status: string }) => c.status === "ok"));
});

Deno.test("doctor warns about a from-source handler without --quiet or inside npx's cache", async () => {
  await using s = await tempSetup();
  const npx = join(s.outside, ".npm", "_npx", "0123", "node_modules", "deno");
  await Deno.mkdir(npx, { recursive: true });
  const deno = join(npx, posix ? "deno" : "deno.exe");
  await Deno.writeTextFile(deno, "");
  if (posix) await Deno.chmod(deno, 0o755);
  const main_ts = join(s.outside, "stall-watch", "main.ts");
  await Deno.mkdir(join(s.outside, "stall-watch"));
  await Deno.writeTextFile(main_ts, "");
  const shown = (p: string) => p.replaceAll("\\", "/");
  await s.write(
    "settings.local.json",
    JSON.stringify({
      hooks: {
        Stop: [{
          hooks: [{
            type: "command",
            command: shown(deno),
            args: [
              "run",
              "--allow-read",
              "--allow-write=.claude",
              "--allow-env",
              "--no-prompt",
              shown(main_ts),
            ],
            timeout: 30,
          }],
        }],
      },
    }),
  );
  const { code, out } = await s.doctor();
  assert.equal(code, 0, out);
  const warns = lines(out, "warn").join("\n");
  assert.match(warns, /_npx.* is in npx's cache, which npm empties/);
  assert.match(warns, /"deno run" without --quiet/);
  assert.match(
    out,
    /fix: install Deno for good \("npm install -g deno@2\.9\.6"/,
  );
});

Deno.test("doctor warns about a shell command that does not start in the project root", async () => {
  await using s = await tempSetup();
  await s.write(
    "settings.local.json",
    JSON.stringify({
      hooks: {
        Stop: [{
          hooks: [{ type: "command", command: s.shown, timeout: 9 }],
        }],
      },
    }),
  );
  const { code, out } = await s.doctor();
  assert.equal(code, 0, out);
  assert.deepEqual(lines(out, "warn").map((l) => l.slice(8)), [
    `Stop in ${LOCAL}: starts in the session's current folder, not the project root`,
  ]);
});

Deno.test("doctor warns about the cd ... && form older versions wrote: a project folder that is gone would block every stop", async () => {
  await using s = await tempSetup();
  await s.write(
    "settings.local.json",
    JSON.stringify({
      hooks: {
        Stop: [{
          hooks: [{
            type: "command",
            command: `cd -- "$CLAUDE_PROJECT_DIR" && ${s.shown}`,
            timeout: 30,
          }],
        }],
      },
    }),
  );
  const { code, out } = await s.doctor();
  assert.equal(code, 0, out);
  assert.deepEqual(lines(out, "warn").map((l) => l.slice(8)), [
    `Stop in ${LOCAL}: if the project folder is moved or deleted, the failed cd exits 2 (dash, the sh of Debian and Ubuntu), which Claude Code reads as a block at every stop`,
  ]);
  assert.ok(
    out.includes(
      `        fix: run "stall-watch install --scope local"\n`,
    ),
    out,
  );
  // What install writes now draws no such warning.
  assert.equal(await main(["install"], s.io()), 0);
  assert.deepEqual(lines((await s.doctor()).out, "warn"), []);
});

Deno.test("doctor checks the watch handler's async flags and timeout", async () => {
  await using s = await tempSetup();
  await s.write(
    "settings.json",
    JSON.stringify({
      hooks: {
        Stop: [{
          hooks: [{
            type: "command",
            command: `cd "$CLAUDE_PROJECT_DIR" && ${s.shown}`,
            timeout: 30,
          }],
        }],
        PostToolUse: [{
          hooks: [{
            type: "command",
            command: `${s.shown} watch`,
            timeout: 600,
          }],
        }],
      },
    }),
  );
  const { code, out } = await s.doctor();
  assert.equal(code, 1);
  assert.deepEqual(lines(out, "FAIL").map((l) => l.slice(8)), [
    `PostToolUse in ${PROJECT}: the watch handler needs "async": true and "asyncRewake": true`,
    `PostToolUse in ${PROJECT}: timeout 600 s is not above the watchdog's deadline (600 s)`,
  ]);
});

Deno.test("doctor rejects arguments with one line and exit 64", async () => {
  await using s = await tempSetup();
  const fake = s.io();
  assert.equal(await main(["doctor", "--fix"], fake), 64);
  assert.deepEqual(fake.stderr, [
    'stall-watch: Unknown option "--fix" for "doctor": run "stall-watch help doctor"\n',
  ]);
});

function facts(overrides: Partial<DoctorFacts> = {}): DoctorFacts {
  return {
    version: "9.9.9",
    self: selfInvocation(
      "C:\\t\\stall-watch.exe",
      "file:///C:/m.ts",
      "windows",
    ),
    platform: "windows",
    projectDir: "C:/p",
    files: [],
    paths: new Map(),
    claudeDirError: null,
    configPath: null,
    problems: [],
    killSwitch: { active: false, source: "" },
    announcedNoCall: "log",
    watchMaxSeconds: 600,
    timers: {
      watchEvents: [],
      idleSeconds: 30,
      watchMaxSeconds: 600,
      maxRetries: 3,
      env: {},
    },
    plugin: { states: [], problem: null, runtime: null },
    client: {
      transcript: null,
      release: null,
      watch: false,
      output: "stderr",
      idleSeconds: 30,
    },
    ...overrides,
  };
}

Deno.test("doctorChecks() on Windows: backslashes in a shell command fail, exec form passes", () => {
  const handler = (h: Record<string, unknown>) => ({
    event: "Stop" as const,
    group: 0,
    index: 0,
    handler: h,
    groupKeys: [],
    args: [],
  });
  const results = doctorChecks(facts({
    files: [{
      scope: "user",
      display: "C:/Users/me/.claude/settings.json",
      exists: true,
      error: null,
      shapeProblems: [],
      misregistered: [],
      handlers: [
        handler({
          type: "command",
          command: "C:\\t\\stall-watch.exe",
          timeout: 30,
        }),
        handler({
          type: "command",
          command: "C:/t/stall-watch.exe",
          args: [],
          timeout: 30,
        }),
      ],
    }],
    paths: new Map([
      ["C:/t/stall-watch.exe", {
        exists: true,
        isFile: true,
        executable: true,
      }],
    ]),
  }));
  const texts = results.map((r) => `${r.status} ${r.text}`);
  assert.ok(
    texts.includes(
      "fail Stop in C:/Users/me/.claude/settings.json: C:\\t\\stall-watch.exe has backslashes, which bash drops",
    ),
    texts.join("\n"),
  );
  assert.ok(
    texts.includes(
      "ok Stop in C:/Users/me/.claude/settings.json: C:/t/stall-watch.exe (timeout 30 s)",
    ),
    texts.join("\n"),
  );
  assert.ok(
    texts.includes("ok stall-watch 9.9.9 (compiled: C:/t/stall-watch.exe)"),
  );
});

Deno.test("doctorChecks() reports an unwritable .claude with a fix", () => {
  const result = doctorChecks(facts({ claudeDirError: "Permission denied" }))
    .find((r) => r.text.startsWith(".claude"));
  assert.equal(result?.status, "fail");
  assert.equal(result?.text, ".claude is not writable: Permission denied");
  assert.ok(result?.fix);
});

Deno.test("renderDoctorReport() colours status words only when asked", () => {
  const results = doctorChecks(facts());
  // Written as stall-watch's own tokens, the sequences once on the stream.
  assert.ok(
    sanitizeTerminalStream(renderDoctorReport(results, true)).includes(
      "\x1b[31mFAIL\x1b[0m",
    ),
  );
  assert.ok(!renderDoctorReport(results, false).includes("\x1b"));
});

Deno.test("doctor as a process under the release flags passes after install and writes nothing", async () => {
  await using project = await tempProject();
  const env = { CLAUDE_CONFIG_DIR: join(project.dir, "user-config") };
  const before = await runStallWatch({
    cwd: project.dir,
    args: ["doctor"],
    env,
  });
  assert.equal(before.code, 1);
  assert.deepEqual(await Array.fromAsync(Deno.readDir(project.dir)), []);
  const installed = await runStallWatch({
    cwd: project.dir,
    args: ["install"],
    env,
  });
  assert.equal(installed.code, 0, installed.stderr);
  const after = await runStallWatch({
    cwd: project.dir,
    args: ["doctor"],
    env,
  });
  assert.equal(after.code, 0, after.stdout + after.stderr);
  assert.match(after.stdout, /^stall-watch doctor\n/);
  assert.match(after.stdout, /All checks passed\.\n$/);
  assert.equal(after.stderr, "");
});

/** Puts a real transcript in the project's folder under `projects`. */
async function seedTranscript(s: Setup, fixture: string): Promise<string> {
  const folder = join(
    s.project,
    "user-config",
    "projects",
    projectSlug(s.project),
  );
  await Deno.mkdir(folder, { recursive: true });
  const path = join(folder, "0b1c2d3e-session.jsonl");
  await Deno.copyFile(join(FIXTURES_DIR, "real", fixture), path);
  return path;
}

Deno.test("doctor names the Claude Code release of the project's newest transcript and what works on it", async () => {
  await using s = await tempSetup();
  assert.equal(await main(["install", "--watch"], s.io()), 0);
  const fresh = await s.doctor();
  assert.match(
    fresh.out,
    /\n {2}ok {4}Claude Code release: unknown \(no transcript of this project yet/,
  );
  // A real 2.0.76 file: no asyncRewake, no async hooks, no context mode.
  const path = await seedTranscript(
    s,
    "real_api_error_after_tool_result_2.0.76.jsonl",
  );
  const old = await s.doctor({ STALL_WATCH_OUTPUT: "context" });
  assert.equal(old.code, 0, "warnings only");
  assert.ok(
    old.out.includes(
      `  ok    Claude Code 2.0.76 wrote this project's newest transcript (${path})\n`,
    ),
    old.out,
  );
  assert.deepEqual(lines(old.out, "warn").map((l) => l.slice(8)), [
    "the watchdog cannot wake a session on Claude Code 2.0.76: it needs asyncRewake (2.1.84+), so watch exits at once and only the Stop hook nudges (and before 2.1.15 each watcher still starts in line, after every tool call)",
    'output "context" needs Claude Code 2.1.163 or later: on 2.0.76 each block uses exit 2 and stderr instead',
  ]);
  assert.match(
    old.out,
    /fix: upgrade Claude Code to 2\.1\.84 or later, or drop the watchdog \("stall-watch uninstall", then "stall-watch install" without --watch\)/,
  );
  // A newer session by a release with everything: all works.
  const newer = join(path, "..", "9f8e7d6c-session.jsonl");
  await Deno.copyFile(
    join(FIXTURES_DIR, "real", "real_api_error_after_tool_result.jsonl"),
    newer,
  );
  const future = new Date(Date.now() + 60_000);
  await Deno.utime(newer, future, future);
  const current = await s.doctor({ STALL_WATCH_OUTPUT: "context" });
  assert.deepEqual(lines(current.out, "warn"), []);
  assert.ok(
    current.out.includes("  ok    the watchdog works on Claude Code 2.1.332\n"),
  );
  assert.ok(
    current.out.includes(
      '  ok    output "context" works on Claude Code 2.1.332\n',
    ),
  );
});

Deno.test("clientChecks() warns where the watchdog cannot see a running request (before 2.1.300)", () => {
  const checks = clientChecks({
    transcript: "/p/s.jsonl",
    release: [2, 1, 214],
    watch: true,
    output: "stderr",
    idleSeconds: 30,
  });
  assert.deepEqual(checks.map((c) => c.status), ["ok", "warn", "ok"]);
  assert.match(checks[1]!.text, /reply slower than the idle window \(30 s\)/);
  assert.match(checks[1]!.fix ?? "", /raise watch\.idle_seconds/);
  // No watchdog registered: nothing said about it.
  const plain = clientChecks({
    transcript: "/p/s.jsonl",
    release: [2, 1, 47],
    watch: false,
    output: "json",
    idleSeconds: 30,
  });
  assert.deepEqual(plain.map((c) => c.text), [
    "Claude Code 2.1.47 wrote this project's newest transcript (/p/s.jsonl)",
    'output "json" works on Claude Code 2.1.47',
  ]);
});

Deno.test("doctor says what announced_no_call does, that it is off by default, and how precise it was on real sessions", () => {
  const line = (mode: "log" | "block") =>
    doctorChecks(facts({ announcedNoCall: mode })).find((r) =>
      r.text.startsWith("announced_no_call")
    );
  const off = line("log");
  assert.equal(off?.status, "ok");
  assert.match(off?.text ?? "", /logged only \(off by default\)/);
  assert.match(off?.text ?? "", /every one a real announced stop/);
  assert.match(off?.text ?? "", /"announced_no_call": "block" nudges it/);
  assert.match(
    line("block")?.text ?? "",
    /^announced_no_call blocks: .* nudged once/,
  );
});

Deno.test("clientChecks() says what the watchdog does when another hook can end a turn: silent where Claude Code records the stop (2.1.97+), a warning before", () => {
  const base = {
    transcript: "/p/s.jsonl",
    watch: true,
    output: "stderr" as const,
    idleSeconds: 30,
    turnEndingHooks: ["PostToolUse in .claude/settings.json: ./policy.sh"],
  };
  const texts = (release: [number, number, number] | null) =>
    clientChecks({ ...base, release }).filter((c) =>
      c.text.includes("can end a turn")
    );
  const recorded = texts([2, 1, 145]);
  assert.deepEqual(recorded.map((c) => c.status), ["ok"]);
  assert.match(
    recorded[0]!.text,
    /1 other hook can end a turn after a tool call \(by returning "continue": false\): PostToolUse in \.claude\/settings\.json: \.\/policy\.sh; Claude Code 2\.1\.145 records such a stop/,
  );
  const unrecorded = texts([2, 1, 90]);
  assert.deepEqual(unrecorded.map((c) => c.status), ["warn"]);
  assert.match(
    unrecorded[0]!.text,
    /Claude Code 2\.1\.90 leaves no record of such a stop \(2\.1\.97 does\), so the watchdog takes that turn for a tool result nobody answered and wakes the session after its idle window \(30 s\)/,
  );
  assert.match(unrecorded[0]!.fix ?? "", /upgrade Claude Code to 2\.1\.97/);
  assert.match(
    texts(null)[0]!.text,
    /if your Claude Code is older than 2\.1\.97/,
  );
  // Where the watchdog cannot wake anyone, or is not registered: nothing.
  assert.deepEqual(texts([2, 1, 47]), []);
  assert.deepEqual(
    clientChecks({ ...base, release: [2, 1, 90], watch: false }).filter((c) =>
      c.text.includes("can end a turn")
    ),
    [],
  );
});

Deno.test("doctor warns when another hook can end a turn and the project's Claude Code leaves no record of it", async () => {
  await using s = await tempSetup();
  assert.equal(await main(["install", "--watch"], s.io()), 0);
  // A policy hook of the user's in the shared settings.
  await s.write(
    "settings.json",
    JSON.stringify({
      hooks: {
        PostToolUse: [{
          matcher: "Bash",
          hooks: [{ type: "command", command: "./policy.sh" }],
        }],
      },
    }),
  );
  await seedTranscript(s, "real_hook_stopped_post_tool_use_2.1.90.jsonl");
  const old = await s.doctor();
  assert.equal(old.code, 0, "a warning only");
  const warned = lines(old.out, "warn").map((l) => l.slice(8));
  assert.ok(
    warned.some((l) =>
      l.startsWith(
        `1 other hook can end a turn after a tool call (by returning "continue": false): PostToolUse in ${PROJECT}: ./policy.sh. Claude Code 2.1.90 leaves no record`,
      )
    ),
    old.out,
  );
});

Deno.test("clientChecks() says whether stall-watch's status line can name a hung call: a refresh interval, on Claude Code 2.1.97+", () => {
  const base = {
    transcript: "/p/s.jsonl",
    watch: false,
    output: "stderr" as const,
    idleSeconds: 30,
  };
  const line = (refreshSeconds: number | null) => ({
    file: ".claude/settings.local.json",
    refreshSeconds,
    afterSeconds: 300,
  });
  const about = (checks: CheckResult[]) =>
    checks.filter((c) => c.text.includes("status line"));
  const works = about(
    clientChecks({ ...base, release: [2, 1, 332], statusLine: line(30) }),
  );
  assert.deepEqual(works, [{
    status: "ok",
    text:
      "the status line in .claude/settings.local.json names a tool call that has had no result for 300 s (looked at every 30 s)",
  }]);
  const old = about(
    clientChecks({ ...base, release: [2, 1, 90], statusLine: line(30) }),
  );
  assert.equal(old[0]?.status, "warn");
  assert.match(old[0]!.text, /Claude Code 2\.1\.90 runs the status line/);
  assert.match(old[0]!.fix ?? "", /2\.1\.97/);
  const once = about(
    clientChecks({ ...base, release: [2, 1, 332], statusLine: line(null) }),
  );
  assert.equal(once[0]?.status, "warn");
  assert.match(once[0]!.fix ?? "", /install --statusline/);
  assert.deepEqual(
    about(clientChecks({ ...base, release: [2, 1, 332], statusLine: null })),
    [],
  );
});

Deno.test("install --statusline registers the status line, doctor finds it, uninstall removes it", async () => {
  await using s = await tempSetup();
  assert.equal(await main(["install", "--statusline"], s.io()), 0);
  const settings = JSON.parse(
    await Deno.readTextFile(join(s.project, LOCAL)),
  );
  assert.equal(settings.statusLine.refreshInterval, 30);
  assert.match(settings.statusLine.command, /statusline$/);
  const checked = await s.doctor();
  assert.match(
    checked.out,
    /ok {4}the status line in \.claude[\\/]settings\.local\.json names a tool call that has had no result for 300 s \(looked at every 30 s\)/,
  );
  assert.equal(await main(["uninstall"], s.io()), 0);
  const after = JSON.parse(await Deno.readTextFile(join(s.project, LOCAL)));
  assert.equal("statusLine" in after, false);
});

Deno.test("doctorChecks() applies a hook's program checks to the status line: a different program inside the project gets warnings, not the ok", () => {
  const statusLine = {
    file: ".claude/settings.local.json",
    scope: "local" as const,
    value: {
      type: "command",
      command: '"$CLAUDE_PROJECT_DIR"/tools/stall-watch statusline',
    },
  };
  const client = {
    transcript: null,
    release: [2, 1, 332] as [number, number, number],
    watch: false,
    output: "stderr" as const,
    idleSeconds: 30,
    statusLine: {
      file: statusLine.file,
      refreshSeconds: 30,
      afterSeconds: 300,
    },
  };
  const program = "C:/p/tools/stall-watch";
  const checks = doctorChecks(facts({
    statusLine,
    client,
    selfPath: "C:/t/stall-watch.exe",
    paths: new Map([[program, {
      exists: true,
      isFile: true,
      executable: true,
      realPath: program,
    }]]),
  })).filter((c) => c.text.includes("status line"));
  assert.deepEqual(checks.map((c) => c.status), ["warn", "warn"]);
  assert.match(
    checks[0]!.text,
    /^the status line in \.claude\/settings\.local\.json: runs \$CLAUDE_PROJECT_DIR\/tools\/stall-watch statusline, a different program than this stall-watch \(C:\/t\/stall-watch\.exe\)/,
  );
  assert.match(checks[1]!.text, /lives inside the project/);
  // This stall-watch, outside the project: the ok line about what it shows.
  const own = doctorChecks(facts({
    statusLine: {
      ...statusLine,
      value: { type: "command", command: "C:/t/stall-watch.exe statusline" },
    },
    client,
    selfPath: "C:/t/stall-watch.exe",
    paths: new Map([["C:/t/stall-watch.exe", {
      exists: true,
      isFile: true,
      executable: true,
      realPath: "C:/t/stall-watch.exe",
    }]]),
  })).filter((c) => c.text.includes("status line"));
  assert.deepEqual(own.map((c) => c.status), ["ok"]);
});

Deno.test("doctorChecks() says which kill-switch marker is in force, who set it, and whether it exists", () => {
  const about = (look: MarkerLook) =>
    doctorChecks(facts({
      killSwitchMarker: {
        path: "/tmp/stall_off",
        source: "env STALL_WATCH_KILL_SWITCH_FILE",
        look,
      },
    })).filter((c) => c.text.includes("kill-switch marker"));
  assert.deepEqual(about({ state: "absent" }), [{
    status: "ok",
    text:
      "kill-switch marker /tmp/stall_off (set by env STALL_WATCH_KILL_SWITCH_FILE) does not exist (create it to allow every stop)",
  }]);
  assert.match(about({ state: "present" })[0]!.text, /exists: every stop/);
  const refused = about({ state: "refused", reason: "x is a symlink" });
  assert.equal(refused[0]?.status, "warn");
  assert.match(refused[0]!.text, /is never looked at: x is a symlink$/);
  assert.deepEqual(
    doctorChecks(facts()).filter((c) => c.text.includes("marker")),
    [],
  );
});

Deno.test("doctor never looks at a handler's program on a network path (\\\\host\\share, //host): it fails the handler, naming why", async () => {
  await using s = await tempSetup();
  for (
    const program of [
      "//stallwatch-host/share/stall-watch",
      "\\\\stallwatch-host\\share\\stall-watch.exe",
    ]
  ) {
    await s.write(
      "settings.local.json",
      JSON.stringify({
        hooks: {
          Stop: [{
            // The exec form: a shell would drop the backslashes.
            hooks: [{
              type: "command",
              command: program,
              args: [],
              timeout: 30,
            }],
          }],
        },
      }),
    );
    const { code, out } = await s.doctor();
    assert.equal(code, 1, out);
    assert.match(
      out,
      /FAIL {2}Stop in .*: .*stall-watch(\.exe)? was never looked at: it is a network or device path/,
    );
  }
});
