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
import { assertSnapshot } from "../support/snapshot.ts";
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

/**
 * One run as a snapshot records it: exit code, and each stream as lines (a
 * help text reads as itself in the file), the version written `<version>`
 * so a release changes no snapshot.
 */
function recorded(
  result: { code: number; out: string; err: string },
): { code: number; stdout: string[]; stderr: string[] } {
  const lines = (text: string) =>
    text === "" ? [] : text.replaceAll(VERSION, "<version>").split("\n");
  return {
    code: result.code,
    stdout: lines(result.out),
    stderr: lines(result.err),
  };
}

Deno.test("--help, help <command> and <command> --help print the snapshots' texts", async () => {
  const runs: Record<string, ReturnType<typeof recorded>> = {};
  for (const args of [["--help"], ["help", "help"]]) {
    runs[["stall-watch", ...args].join(" ")] = recorded(await run(args));
  }
  for (const command of COMMANDS) {
    runs[`stall-watch help ${command.name}`] = recorded(
      await run(["help", command.name]),
    );
  }
  await assertSnapshot(runs, import.meta.url, "cli_help");
  // Every spelling of a help prints the same text, on stdout, exit 0.
  for (const args of [["-h"], ["help"]]) {
    assert.deepEqual(recorded(await run(args)), runs["stall-watch --help"]);
  }
  for (const command of COMMANDS) {
    const help = runs[`stall-watch help ${command.name}`]!;
    assert.equal(help.code, 0);
    assert.equal(
      help.stdout[0]?.startsWith(`stall-watch ${command.name}`),
      true,
    );
    assert.equal(help.stdout.at(-1), "", "ends with a newline");
    for (const args of [[command.name, "--help"], [command.name, "-h"]]) {
      assert.deepEqual(recorded(await run(args)), help, args.join(" "));
    }
  }
});

Deno.test("--help lists every command with its summary and the exit codes", () => {
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
});

Deno.test("unknown commands, options and help topics: one stderr line and exit 64, as the snapshot says", async () => {
  const cases: string[][] = [
    ["frobnicate"],
    ["--frobnicate"],
    ["-x"],
    ["help", "frobnicate"],
    ["help", "install", "doctor"],
    ["install", "--frobnicate"],
    ["uninstall", "--scope"],
    ["doctor", "now"],
    ["--verison"],
    ["adit"],
    ["help", "scna"],
    ["unintall"],
    ["scan", "x.jsonl", "--jsn"],
    ["audit", "--color", "sometimes"],
    ["doctor", "--color"],
    ["--color", "always"],
  ];
  const runs: Record<string, ReturnType<typeof recorded>> = {};
  for (const args of cases) {
    const result = recorded(await run(args));
    // Never 2: Claude Code would read it as a block.
    assert.equal(result.code, 64, args.join(" "));
    assert.deepEqual(result.stdout, [], args.join(" "));
    assert.equal(result.stderr.length, 2, "one line, ending in a newline");
    assert.match(result.stderr[0]!, /^stall-watch: /);
    runs[["stall-watch", ...args].join(" ")] = result;
  }
  await assertSnapshot(runs, import.meta.url, "cli_usage_errors");
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

Deno.test("the hook refuses a terminal on stdin with usage and exit 64, not a hang, as the snapshot says", async () => {
  await using project = await tempProject();
  const io = fakeIO({ cwd: project.dir, stdinIsTerminal: true });
  const code = await main([], io);
  const result = recorded({
    code,
    out: io.stdout.join(""),
    err: io.stderr.join(""),
  });
  assert.equal(result.code, 64);
  await assertSnapshot(
    { "stall-watch (stdin a terminal)": result },
    import.meta.url,
    "cli_hook_at_a_terminal",
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
