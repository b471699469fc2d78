/**
 * The scripts the workflows call (`deno compile` cannot run here, so what
 * they build is checked as data): the compile argv per target, archive
 * names and commands, SHA256SUMS that `sha256sum -c` accepts, and the
 * smoke test itself against the source build.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import {
  binaryPath,
  BUILD_FLAGS,
  compileArgs,
  hookCmdJson,
  parseArgs,
  REPO_ROOT,
  resolveTargets,
  sourceModules,
  TARGETS,
} from "../../.github/scripts/compile.ts";
import {
  archiveCommand,
  archiveName,
  checksumsText,
  packageRelease,
  sha256File,
} from "../../.github/scripts/package.ts";
import { parseSmokeArgs, smokeTest } from "../../.github/scripts/smoke_test.ts";
import {
  PINS_HEADER,
  PINS_PATH,
  pinsText,
} from "../../.github/scripts/pin_checksums.ts";
import { HOOK_PERMISSION_FLAGS } from "../../src/shared/permissions.ts";
import { VERSION } from "../../src/shared/version.ts";
import { hookCommand, MAIN_TS } from "../support/hook_process.ts";
import { tempProject } from "../support/temp_project.ts";
import { moduleGraph, relativeTo } from "../support/module_graph.ts";
import { BUNDLE_PATH } from "../../.github/scripts/bundle.ts";
import { missing, onWindows, skipWhere } from "../support/platform.ts";

const TRIPLES = [
  "x86_64-unknown-linux-gnu",
  "aarch64-unknown-linux-gnu",
  "x86_64-apple-darwin",
  "aarch64-apple-darwin",
  "x86_64-pc-windows-msvc",
];

async function has(program: string): Promise<boolean> {
  try {
    await new Deno.Command(program, {
      args: ["--version"],
      stdout: "null",
      stderr: "null",
    }).output();
    return true;
  } catch {
    return false;
  }
}

Deno.test("TARGETS are the five release triples; only Windows gets .exe and .zip", () => {
  assert.deepEqual(TARGETS.map((t) => t.triple), TRIPLES);
  for (const target of TARGETS) {
    const windows = target.triple.includes("windows");
    assert.equal(target.binary, windows ? "stall-watch.exe" : "stall-watch");
    assert.equal(target.archive, windows ? "zip" : "tar.gz");
  }
});

Deno.test("compileArgs() bakes in exactly the release permission flags, relative write path kept", () => {
  for (const target of TARGETS) {
    const args = compileArgs(target, "out");
    assert.deepEqual(args, [
      "compile",
      "--allow-read",
      "--allow-write=.claude,.codex",
      "--allow-env",
      "--allow-run=codex",
      "--no-prompt",
      "--quiet",
      "--no-code-cache",
      "--exclude-unused-npm",
      "--target",
      target.triple,
      "--output",
      join("out", target.triple, target.binary),
      "main.ts",
    ]);
    const permissionFlags = args.filter((a) =>
      /^--(allow|deny|ignore)-|^--no-prompt$|^-A$|^--permission-set|^-P/.test(a)
    );
    assert.deepEqual(permissionFlags, [...HOOK_PERMISSION_FLAGS]);
  }
  assert.ok(BUILD_FLAGS.includes("--no-code-cache"));
  // The log level is baked in: quiet, or a stop on a machine without Codex
  // prints Deno's "Failed to resolve 'codex' for allow-run" line.
  assert.ok(BUILD_FLAGS.includes("--quiet"));
});

Deno.test("the compile step embeds every src module, including the lazily imported ones", () => {
  const modules = sourceModules();
  // Imported with computed specifiers, which deno compile cannot follow.
  for (
    const lazy of [
      "src/cli.ts",
      "src/shared/real_io.ts",
      "src/hook/stop_hook.ts",
      "src/commands/install.ts",
      "src/commands/watch.ts",
      "src/audit/_audit_worker.ts",
    ]
  ) {
    assert.ok(modules.includes(lazy), lazy);
  }
  const args = compileArgs(TARGETS[0]!, "out", modules);
  const included = args.flatMap((a, i) =>
    args[i - 1] === "--include" ? [a] : []
  );
  assert.deepEqual(included, modules);
  assert.equal(args.at(-1), "main.ts");
});

Deno.test("a stop of the compiled binary loads what a stop from source loads: main.ts and the hook's bundle", async () => {
  // deno compile embeds the entry's graph (static and literal imports) and
  // the --include modules; at run time a module loads only when imported.
  // The entry is main.ts, whose stop imports only the bundle, which imports
  // nothing: the --include list (every src module, for the commands) adds
  // files to the binary, never modules to a stop.
  const args = compileArgs(TARGETS[0]!, "out", sourceModules());
  assert.equal(args.at(-1), "main.ts");
  const root = new URL("../../", import.meta.url).href;
  const stop = await moduleGraph(`${root}main.ts`, { dynamic: true });
  assert.deepEqual(relativeTo(root, stop.keys()), ["main.ts", BUNDLE_PATH]);
  const bundle = await moduleGraph(`${root}${BUNDLE_PATH}`, { dynamic: true });
  assert.equal(bundle.size, 1);
  // The bundle is embedded as main.ts's import, not as an --include.
  assert.ok(!args.includes(BUNDLE_PATH));
});

Deno.test("resolveTargets() takes a triple, host or all, and names the choices otherwise", () => {
  assert.deepEqual(
    resolveTargets("host", "aarch64-apple-darwin").map((t) => t.triple),
    ["aarch64-apple-darwin"],
  );
  assert.equal(resolveTargets("all", "x").length, 5);
  assert.throws(
    () => resolveTargets("host", "riscv64gc-unknown-linux-gnu"),
    /Unknown target "riscv64gc-unknown-linux-gnu": use host, all or one of x86_64-unknown-linux-gnu, /,
  );
  assert.deepEqual(parseArgs(["--target", "all", "--print-path"]), {
    target: "all",
    outDir: "dist",
    mode: "print-path",
  });
  assert.throws(() => parseArgs(["--target"]), /--target needs a value/);
  assert.throws(() => parseArgs(["--frob"]), /Unknown argument "--frob"/);
});

Deno.test("hookCmdJson() is what the test harness reads from STALL_WATCH_HOOK_CMD", () => {
  const binary = binaryPath("C:\\a\\dist", TARGETS[4]!);
  const json = hookCmdJson(binary);
  assert.deepEqual(JSON.parse(json), [binary]);
  const saved = Deno.env.get("STALL_WATCH_HOOK_CMD");
  try {
    Deno.env.set("STALL_WATCH_HOOK_CMD", json);
    assert.deepEqual(hookCommand(), [binary]);
  } finally {
    if (saved === undefined) Deno.env.delete("STALL_WATCH_HOOK_CMD");
    else Deno.env.set("STALL_WATCH_HOOK_CMD", saved);
  }
});

Deno.test("archiveName() and archiveCommand() put the binary at the archive's top level", () => {
  assert.deepEqual(TARGETS.map(archiveName), [
    "stall-watch-x86_64-unknown-linux-gnu.tar.gz",
    "stall-watch-aarch64-unknown-linux-gnu.tar.gz",
    "stall-watch-x86_64-apple-darwin.tar.gz",
    "stall-watch-aarch64-apple-darwin.tar.gz",
    "stall-watch-x86_64-pc-windows-msvc.zip",
  ]);
  assert.deepEqual(
    archiveCommand(
      TARGETS[0]!,
      "/d/x86_64-unknown-linux-gnu/stall-watch",
      "/o/a.tar.gz",
    ),
    [
      "tar",
      "-czf",
      "/o/a.tar.gz",
      "-C",
      "/d/x86_64-unknown-linux-gnu",
      "stall-watch",
    ],
  );
  assert.deepEqual(
    archiveCommand(TARGETS[4]!, "/d/w/stall-watch.exe", "/o/a.zip"),
    ["zip", "-j", "-X", "-q", "/o/a.zip", "/d/w/stall-watch.exe"],
  );
});

Deno.test("checksumsText() is sorted sha256sum format", () => {
  assert.equal(
    checksumsText([
      { name: "b.zip", sha256: "bb" },
      { name: "a.tar.gz", sha256: "aa" },
    ]),
    "aa  a.tar.gz\nbb  b.zip\n",
  );
});

Deno.test("packageRelease() refuses to run before the binaries exist", async () => {
  await using project = await tempProject();
  await assert.rejects(
    packageRelease(join(project.dir, "dist"), join(project.dir, "out")),
    /Missing binaries \(compile first\): .*x86_64-unknown-linux-gnu/,
  );
});

const tools = await Promise.all(["tar", "zip", "unzip", "sha256sum"].map(has));

Deno.test({
  ...skipWhere(
    "packageRelease() archives stand-in binaries; sha256sum -c, tar and unzip agree",
    onWindows("checks the archives with POSIX tar, zip, unzip and sha256sum"),
    missing(tools.includes(false), "tar, zip, unzip or sha256sum is missing"),
  ),
  fn: async () => {
    await using project = await tempProject();
    const dist = join(project.dir, "dist");
    for (const target of TARGETS) {
      const binary = binaryPath(dist, target);
      await Deno.mkdir(join(dist, target.triple), { recursive: true });
      await Deno.writeTextFile(binary, `#!/bin/sh\necho ${target.triple}\n`);
      await Deno.chmod(binary, 0o755);
    }
    const out = join(project.dir, "release");
    const written = await packageRelease(dist, out);
    assert.deepEqual(
      written.map((p) => p.slice(out.length + 1)),
      [...TARGETS.map(archiveName), "SHA256SUMS"],
    );
    const sums = await Deno.readTextFile(join(out, "SHA256SUMS"));
    assert.equal(sums.trim().split("\n").length, 5);
    const first = join(out, archiveName(TARGETS[0]!));
    assert.ok(
      sums.includes(
        `${await sha256File(first)}  ${archiveName(TARGETS[0]!)}\n`,
      ),
    );

    const run = async (program: string, args: string[], cwd = out) => {
      const result = await new Deno.Command(program, { args, cwd }).output();
      return {
        ok: result.success,
        out: new TextDecoder().decode(result.stdout),
      };
    };
    const check = await run("sha256sum", ["-c", "SHA256SUMS"]);
    assert.ok(check.ok, check.out);
    assert.equal(check.out.match(/: OK$/gm)?.length, 5);

    const listing = await run("tar", ["-tvzf", first]);
    assert.match(listing.out, /^-rwxr-xr-x .* stall-watch\n$/);
    const extracted = join(project.dir, "x");
    await Deno.mkdir(extracted);
    assert.ok(
      (await run("unzip", [
        "-q",
        join(out, archiveName(TARGETS[4]!)),
        "-d",
        extracted,
      ])).ok,
    );
    assert.equal(
      await Deno.readTextFile(join(extracted, "stall-watch.exe")),
      "#!/bin/sh\necho x86_64-pc-windows-msvc\n",
    );
    // A tampered archive fails the check.
    await Deno.writeTextFile(first, "tampered");
    assert.equal((await run("sha256sum", ["-c", "SHA256SUMS"])).ok, false);
  },
});

Deno.test("smokeTest() passes the build under test and catches a wrong version", async () => {
  assert.deepEqual(await smokeTest(hookCommand(), VERSION), []);
  const failures = await smokeTest(hookCommand(), "0.0.0-not-this");
  assert.equal(failures.length, 1);
  assert.match(
    failures[0] ?? "",
    /^--version printed "stall-watch .*", expected "stall-watch 0\.0\.0-not-this"/,
  );
});

Deno.test({
  ...skipWhere(
    "smokeTest() catches a build that is not quiet: Deno's 'Failed to resolve codex for allow-run' line on a machine without Codex",
    onWindows("the PATH below is a POSIX one"),
  ),
  fn: async () => {
    const loud = [Deno.execPath(), "run", ...HOOK_PERMISSION_FLAGS, MAIN_TS];
    const path = Deno.env.get("PATH");
    Deno.env.set("PATH", "/nonexistent");
    try {
      const failures = await smokeTest(loud, VERSION);
      assert.ok(
        failures.some((f) =>
          /^a healthy stop wrote to stderr: .*Failed to resolve 'codex' for allow-run/
            .test(f)
        ),
        failures.join("\n"),
      );
    } finally {
      if (path === undefined) Deno.env.delete("PATH");
      else Deno.env.set("PATH", path);
    }
  },
});

Deno.test("parseSmokeArgs() finds a compiled target under dist/, the source, or takes any argv", () => {
  assert.deepEqual(
    parseSmokeArgs(
      ["--expect-version", "1.2.3", "--target", "host"],
      "x86_64-pc-windows-msvc",
      "deno",
    ),
    {
      expectVersion: "1.2.3",
      argv: [
        join(REPO_ROOT, "dist", "x86_64-pc-windows-msvc", "stall-watch.exe"),
      ],
    },
  );
  assert.deepEqual(parseSmokeArgs(["deno", "run", "main.ts"], "x", "deno"), {
    expectVersion: null,
    argv: ["deno", "run", "main.ts"],
  });
  // The source as the hook's tests run it, by the Deno given.
  assert.deepEqual(parseSmokeArgs(["--source"], "x", "/opt/deno"), {
    expectVersion: null,
    argv: ["/opt/deno", ...hookCommand().slice(1)],
  });
  assert.throws(
    () => parseSmokeArgs(["--source", "x"], "x", "deno"),
    /--source takes no program/,
  );
  assert.throws(() => parseSmokeArgs([], "x", "deno"), /no program to test/);
  assert.throws(
    () => parseSmokeArgs(["--expect-version"], "x", "deno"),
    /needs a value/,
  );
  assert.throws(
    () => parseSmokeArgs(["--target", "mips"], "x", "deno"),
    /Unknown target "mips"/,
  );
});

Deno.test("pinsText() pins every archive of a release under its version, and refuses anything else", () => {
  const sums = checksumsText(
    TARGETS.map((t, i) => ({
      name: archiveName(t),
      sha256: String(i).repeat(64),
    })),
  );
  const text = pinsText("0.2.0", sums);
  assert.ok(text.startsWith(PINS_HEADER));
  const pins = text.slice(PINS_HEADER.length).split("\n").filter(Boolean);
  assert.deepEqual(
    pins,
    TARGETS.map((t, i) => `${String(i).repeat(64)}  v0.2.0/${archiveName(t)}`)
      .sort((a, b) => a.slice(66) < b.slice(66) ? -1 : 1),
  );
  // What fetch.sh reads: the hash of its own version's archive.
  for (
    const bad of [
      sums.split("\n").slice(1).join("\n"), // one archive missing
      sums + `${"a".repeat(64)}  evil.tar.gz\n`,
      sums.replace(/^[0-9a-f]{64}/, "xyz"),
    ]
  ) {
    assert.throws(() => pinsText("0.2.0", bad), /Cannot pin|Cannot read/);
  }
  assert.throws(() => pinsText("0.2.0; rm -rf /", sums), /not a version/);
});

Deno.test("the plugin's committed pins file opens with the header and pins only release archives", async () => {
  const text = await Deno.readTextFile(join(REPO_ROOT, PINS_PATH));
  assert.ok(text.startsWith(PINS_HEADER));
  const archives = TARGETS.map(archiveName);
  for (const line of text.split("\n")) {
    if (line === "" || line.startsWith("#")) continue;
    const match = /^[0-9a-f]{64} {2}v[0-9A-Za-z.+-]+\/(\S+)$/.exec(line);
    assert.ok(match && archives.includes(match[1]!), line);
  }
});
