/**
 * The command-line contract: `--version`, `--help`, `help <command>` and
 * `<command> --help` for every registered command; unknown commands and
 * options get one line on stderr and exit 64, never 2 (Claude Code would
 * read 2 as "block" and feed the usage error to the model).
 */

import assert from "node:assert/strict";
import { main, overview } from "../../src/cli.ts";
import { COMMANDS } from "../../src/commands/registry.ts";
import { VERSION } from "../../src/shared/version.ts";
import { type FakeIO, fakeIO } from "../support/fake_io.ts";
import { runStallWatch } from "../support/hook_process.ts";
import { tempProject } from "../support/temp_project.ts";

async function run(
  args: string[],
): Promise<{ code: number; out: string; err: string; io: FakeIO }> {
  await using project = await tempProject();
  const io = fakeIO({ cwd: project.dir });
  const code = await main(args, io);
  return { code, out: io.stdout.join(""), err: io.stderr.join(""), io };
}

Deno.test("--version, -V and version print the version from deno.json", async () => {
  for (const flag of ["--version", "-V", "version"]) {
    const { code, out, err } = await run([flag]);
    assert.deepEqual([code, out, err], [0, `stall-watch ${VERSION}\n`, ""]);
  }
  const config = JSON.parse(
    await Deno.readTextFile(new URL("../../deno.json", import.meta.url)),
  );
  assert.equal(VERSION, config.version);
});

Deno.test("--help and help list every command with its summary and the exit codes", async () => {
  for (const args of [["--help"], ["-h"], ["help"]]) {
    const { code, out, err } = await run(args);
    assert.deepEqual([code, err], [0, ""]);
    assert.equal(out, overview());
  }
  const text = overview();
  for (const command of COMMANDS) {
    assert.ok(
      text.split("\n").some((line) =>
        line.startsWith(`  ${command.name} `) &&
        line.endsWith(`  ${command.summary}`)
      ),
      command.name,
    );
  }
  assert.match(
    text,
    /Exit codes: 0 allow \/ success, 1 bad input, 2 block \(hook\) or wake \(watch\),\n3 internal error, 64 usage error\./,
  );
  for (const name of ["install", "uninstall", "doctor"]) {
    assert.ok(COMMANDS.some((c) => c.name === name), name);
  }
});

Deno.test("help <command> and <command> --help print the command's help", async () => {
  for (const command of COMMANDS) {
    const help = (await command.load()).help;
    assert.ok(help.startsWith(`stall-watch ${command.name}`), command.name);
    assert.ok(help.endsWith("\n"), command.name);
    for (
      const args of [["help", command.name], [command.name, "--help"], [
        command.name,
        "-h",
      ]]
    ) {
      const { code, out, err } = await run(args);
      assert.deepEqual([code, out, err], [0, help, ""], args.join(" "));
    }
  }
});

Deno.test("unknown commands, options and help topics: one stderr line, exit 64", async () => {
  const cases: [string[], string][] = [
    [
      ["frobnicate"],
      'Unknown command "frobnicate": run "stall-watch --help" for the list',
    ],
    [
      ["--frobnicate"],
      'Unknown option "--frobnicate": run "stall-watch --help" for the list',
    ],
    [["-x"], 'Unknown option "-x": run "stall-watch --help" for the list'],
    [
      ["help", "frobnicate"],
      'Unknown command "frobnicate": run "stall-watch --help" for the list',
    ],
    [["help", "install", "doctor"], '"help" takes one command name, got 2'],
    [
      ["install", "--frobnicate"],
      'Unknown option "--frobnicate" for "install": run "stall-watch help install"',
    ],
    [
      ["uninstall", "--scope"],
      'Option "--scope" needs a value: run "stall-watch help uninstall"',
    ],
    [
      ["doctor", "now"],
      'Unexpected argument "now" for "doctor": run "stall-watch help doctor"',
    ],
    [
      ["--verison"],
      'Unknown option "--verison": did you mean "--version"? Run "stall-watch --help" for the list',
    ],
    [
      ["adit"],
      'Unknown command "adit": did you mean "audit"? Run "stall-watch --help" for the list',
    ],
    [
      ["help", "scna"],
      'Unknown command "scna": did you mean "scan"? Run "stall-watch --help" for the list',
    ],
    [
      ["unintall"],
      'Unknown command "unintall": did you mean "uninstall"? Run "stall-watch --help" for the list',
    ],
    [
      ["scan", "x.jsonl", "--jsn"],
      'Unknown option "--jsn" for "scan": did you mean "--json"? Run "stall-watch help scan"',
    ],
    [
      ["audit", "--color", "sometimes"],
      'Bad value for "--color": "sometimes"; use auto, always or never',
    ],
    [
      ["doctor", "--color"],
      'Bad value for "--color": none given; use auto, always or never',
    ],
    [[
      "--color",
      "always",
    ], '"--color" goes with a command: run "stall-watch --help" for the list'],
  ];
  for (const [args, message] of cases) {
    const { code, out, err } = await run(args);
    assert.equal(code, 64, args.join(" "));
    assert.equal(out, "", args.join(" "));
    assert.equal(err, `stall-watch: ${message}\n`);
  }
});

Deno.test("help help explains help", async () => {
  const { code, out, err } = await run(["help", "help"]);
  assert.equal(code, 0);
  assert.equal(err, "");
  assert.match(out, /^stall-watch help: show help\n/);
  assert.match(out, /stall-watch help <command> {4}one command's options/);
});

Deno.test("--color always|never, before or after the command, decides the colour of every command", async () => {
  await using project = await tempProject();
  for (
    const [args, env, coloured] of [
      [["doctor", "--color", "always"], {}, true],
      [["--color=always", "doctor"], { NO_COLOR: "1" }, true],
      [["doctor"], { FORCE_COLOR: "1" }, true],
      [["doctor", "--color=never"], { FORCE_COLOR: "1" }, false],
      [["doctor"], {}, false],
      [["audit", project.dir, "--color", "always"], {}, true],
    ] as const
  ) {
    const io = fakeIO({
      cwd: project.dir,
      env: { ...env, CLAUDE_CONFIG_DIR: project.dir },
    });
    await main([...args], io);
    assert.equal(
      io.stdout.join("").includes("\x1b["),
      coloured,
      args.join(" "),
    );
  }
});

Deno.test("the hook refuses a terminal on stdin with usage and exit 64, not a hang", async () => {
  await using project = await tempProject();
  const io = fakeIO({ cwd: project.dir, stdinIsTerminal: true });
  assert.equal(await main([], io), 64);
  assert.equal(
    io.stderr.join(""),
    "stall-watch: no command given, and stdin is a terminal: without a command, stall-watch is the Stop hook and reads the payload Claude Code pipes to it. To try it: stall-watch doctor, or stall-watch audit\n\n" +
      overview(),
  );
});

Deno.test("usage errors as a process: one line, exit 64, no stack trace", async () => {
  await using project = await tempProject();
  for (
    const args of [["frobnicate"], ["install", "--scope", "galaxy"], [
      "doctor",
      "--verbose",
    ]]
  ) {
    const result = await runStallWatch({ cwd: project.dir, args });
    assert.equal(result.code, 64, args.join(" "));
    assert.equal(result.stdout, "");
    assert.equal(
      result.stderr.split("\n").filter((l) => l).length,
      1,
      result.stderr,
    );
    assert.match(result.stderr, /^stall-watch: /);
  }
  const help = await runStallWatch({
    cwd: project.dir,
    args: ["help", "install"],
  });
  assert.equal(help.code, 0);
  assert.match(help.stdout, /^stall-watch install: register stall-watch/);
});
