/**
 * `install` and `uninstall` as a user runs them: in process through
 * `main()` with a fake io, and as a process under the release permission
 * flags (or the compiled binary), which proves every write stays inside
 * the project's `.claude`.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { main } from "../../src/cli.ts";
import { describeCommand } from "../../src/install/hook_command.ts";
import { shellQuote } from "../../src/shared/shell_quote.ts";
import { BACKUP_DIR } from "../../src/client_settings/settings_file.ts";
import { FIXTURES_DIR } from "../support/cases.ts";
import { type FakeIO, fakeIO } from "../support/fake_io.ts";
import { hookCommand, runStallWatch } from "../support/hook_process.ts";
import { tempProject } from "../support/temp_project.ts";
import {
  onWindows,
  PLANTS_POSIX_LINKS,
  skipWhere,
} from "../support/platform.ts";

/** The handler's POSIX shell form (`cd ... || exit 1; ...`). */
const SHELL_FORM = onWindows(
  "runs the handler's POSIX shell form; Windows registers exec form",
);

const BIN = "/usr/local/bin/stall-watch";
const windows = Deno.build.os === "windows";
/** What install registers for BIN on this platform (exec form on Windows). */
const HANDLER: Record<string, unknown> = windows
  ? { type: "command", command: BIN, args: [], timeout: 30 }
  : {
    type: "command",
    command: `cd -- "$CLAUDE_PROJECT_DIR" || exit 1; ${BIN}`,
    timeout: 30,
  };
/** Settings file names as the commands print them (native separators). */
const PROJECT = join(".claude", "settings.json");
const LOCAL = join(".claude", "settings.local.json");

function io(cwd: string, env: Record<string, string> = {}): FakeIO {
  return { ...fakeIO({ cwd, env }), execPath: BIN };
}

function errLines(fake: FakeIO): string[] {
  return fake.stderr.join("").split("\n").filter((l) => l !== "");
}

async function exists(path: string): Promise<boolean> {
  return await Deno.lstat(path).then(() => true, () => false);
}

async function listTree(dir: string, prefix = ""): Promise<string[]> {
  const names: string[] = [];
  for await (const entry of Deno.readDir(join(dir, prefix))) {
    const rel = prefix ? `${prefix}/${entry.name}` : entry.name;
    if (entry.isDirectory) names.push(rel + "/", ...await listTree(dir, rel));
    else names.push(rel);
  }
  return names.sort();
}

function stopHandlers(text: string): unknown[] {
  return JSON.parse(text).hooks.Stop.flatMap((g: { hooks: unknown[] }) =>
    g.hooks
  );
}

Deno.test("install writes .claude/settings.local.json by default and says what it did", async () => {
  await using project = await tempProject();
  const dir = project.dir;
  const fake = io(dir);
  assert.equal(await main(["install"], fake), 0);
  const file = join(dir, ".claude", "settings.local.json");
  assert.deepEqual(stopHandlers(await Deno.readTextFile(file)), [HANDLER]);
  assert.deepEqual(fake.stdout.join("").split("\n"), [
    `Updated ${LOCAL}:`,
    `  Stop: added ${describeCommand(HANDLER)}`,
    "Check the set-up with: stall-watch doctor",
    "",
  ]);
  assert.equal(
    await exists(join(dir, BACKUP_DIR)),
    false,
    "nothing to back up",
  );
});

Deno.test("install twice changes nothing the second time and writes no backup", async () => {
  await using project = await tempProject();
  const dir = project.dir;
  assert.equal(await main(["install", "--subagents"], io(dir)), 0);
  const file = join(dir, ".claude", "settings.local.json");
  const before = await Deno.readFile(file);
  const again = io(dir);
  assert.equal(await main(["install", "--subagents"], again), 0);
  assert.deepEqual(again.stdout, [
    `${LOCAL}: nothing to change\n`,
  ]);
  assert.deepEqual(await Deno.readFile(file), before);
  assert.equal(await exists(join(dir, BACKUP_DIR)), false);
});

Deno.test("install updates an older entry in settings.json and backs up the old file first", async () => {
  await using project = await tempProject();
  const dir = project.dir;
  await Deno.mkdir(join(dir, ".claude"));
  const file = join(dir, ".claude", "settings.json");
  const old = `{
    "hooks": {
        "Stop": [ { "hooks": [ { "type": "command", "command": "/old/stall-watch", "timeout": 20 } ] } ]
    },
    "permissions": { "deny": ["Read(./.env)"] }
}
`;
  await Deno.writeTextFile(file, old);
  const fake = io(dir);
  assert.equal(
    await main(["install", "--scope", "project", "--timeout", "45"], fake),
    0,
  );
  const text = await Deno.readTextFile(file);
  // Only the changed values are rewritten; exec form adds "args" inline.
  assert.equal(
    text,
    old.replace(
      '"/old/stall-watch", "timeout": 20',
      `${JSON.stringify(HANDLER.command)}, "timeout": 45${
        windows ? ', "args": []' : ""
      }`,
    ),
  );
  const [backup] = await Array.fromAsync(Deno.readDir(join(dir, BACKUP_DIR)));
  assert.match(backup?.name ?? "", /^settings\.json\.\d{8}T\d{6}Z\.bak$/);
  assert.equal(
    await Deno.readTextFile(join(dir, BACKUP_DIR, backup?.name ?? "")),
    old,
  );
  assert.equal(
    fake.stdout.join("").split("\n")[0],
    `Updated ${PROJECT} (backup: ${join(BACKUP_DIR, backup?.name ?? "")}):`,
  );
});

Deno.test("install refuses a settings file with comments and leaves it untouched", async () => {
  await using project = await tempProject();
  const dir = project.dir;
  await Deno.mkdir(join(dir, ".claude"));
  const file = join(dir, ".claude", "settings.local.json");
  const text = '{\n  // my settings\n  "model": "opus",\n}\n';
  await Deno.writeTextFile(file, text);
  const fake = io(dir);
  assert.equal(await main(["install"], fake), 1);
  assert.deepEqual(errLines(fake), [
    `stall-watch: Cannot install: ${LOCAL} is not strict JSON ` +
    "(2:3: a comment, which strict JSON does not allow); Claude Code ignores such a file: fix it first",
  ]);
  assert.equal(await Deno.readTextFile(file), text);
  assert.deepEqual(await listTree(dir), [
    ".claude/",
    ".claude/settings.local.json",
  ]);
});

Deno.test("install fills an existing empty settings file and backs up the empty one", async () => {
  await using project = await tempProject();
  const dir = project.dir;
  await Deno.mkdir(join(dir, ".claude"));
  const file = join(dir, ".claude", "settings.json");
  await Deno.writeTextFile(file, "");
  assert.equal(await main(["install", "--scope", "project"], io(dir)), 0);
  assert.deepEqual(JSON.parse(await Deno.readTextFile(file)), {
    hooks: { Stop: [{ hooks: [HANDLER] }] },
  });
  const backups = await Array.fromAsync(Deno.readDir(join(dir, BACKUP_DIR)));
  assert.equal(backups.length, 1);
});

Deno.test("install reports a settings path that is a folder in one line", async () => {
  await using project = await tempProject();
  const dir = project.dir;
  await Deno.mkdir(join(dir, ".claude", "settings.local.json"), {
    recursive: true,
  });
  const fake = io(dir);
  assert.equal(await main(["install"], fake), 1);
  const lines = errLines(fake);
  assert.equal(lines.length, 1);
  assert.match(
    lines[0] ?? "",
    /^stall-watch: Cannot read settings file ".*settings\.local\.json": it is a directory$/,
  );
});

Deno.test("install notes when CLAUDE_PROJECT_DIR names another folder than the one it writes to", async () => {
  await using project = await tempProject();
  const dir = project.dir;
  // A .claude already here keeps the note about a root above (a stray
  // /tmp/.claude on the machine) out of what this test is about.
  await Deno.mkdir(join(dir, ".claude"));
  const elsewhere = io(dir, { CLAUDE_PROJECT_DIR: join(dir, "..") });
  assert.equal(await main(["install"], elsewhere), 0);
  assert.deepEqual(errLines(elsewhere), [
    `stall-watch: note: installing into ${dir}, but CLAUDE_PROJECT_DIR is ${
      join(dir, "..")
    }`,
  ]);
  const same = io(dir, { CLAUDE_PROJECT_DIR: dir });
  assert.equal(await main(["install"], same), 0);
  assert.deepEqual(same.stderr, []);
});

Deno.test("install refuses a Deno inside npx's cache, with the fix, and writes nothing", async () => {
  await using project = await tempProject();
  const dir = project.dir;
  for (
    const deno of [
      "/home/me/.npm/_npx/6b1c2f2e0e8b4a51/node_modules/deno/deno",
      "C:\\Users\\Me\\AppData\\Local\\npm-cache\\_npx\\6b1c\\node_modules\\deno\\deno.exe",
    ]
  ) {
    const fake = io(dir);
    fake.execPath = deno;
    assert.equal(await main(["install"], fake), 1, deno);
    const lines = errLines(fake);
    assert.equal(lines.length, 1);
    assert.match(
      lines[0] ?? "",
      /^stall-watch: Refusing to register .*_npx.*: it is in npx's cache, .*npm install -g deno@2\.9\.6/,
    );
    assert.deepEqual(await listTree(dir), []);
  }
});

Deno.test("install --dry-run prints a diff and writes nothing", async () => {
  await using project = await tempProject();
  const dir = project.dir;
  const fake = io(dir);
  assert.equal(
    await main(["install", "--dry-run", "--scope", "project"], fake),
    0,
  );
  const [from, to, hunk, ...added] = fake.stdout.join("").split("\n");
  assert.deepEqual([from, to, hunk], [
    `--- ${PROJECT}`,
    `+++ ${PROJECT} (after install)`,
    `@@ -0,0 +1,${windows ? 16 : 15} @@`,
  ]);
  assert.equal(added.pop(), "");
  assert.ok(added.every((line) => line.startsWith("+")));
  assert.deepEqual(
    JSON.parse(added.map((line) => line.slice(1)).join("\n")),
    { hooks: { Stop: [{ hooks: [HANDLER] }] } },
  );
  assert.deepEqual(await listTree(dir), []);
});

Deno.test("install --scope user works from the home folder and explains itself elsewhere", async () => {
  await using temp = await tempProject();
  const home = temp.dir;
  const project = join(home, "project");
  await Deno.mkdir(project);
  const elsewhere = io(project, { HOME: home });
  assert.equal(await main(["install", "--scope", "user"], elsewhere), 1);
  assert.deepEqual(errLines(elsewhere), [
    `stall-watch: Cannot install into ${
      join(home, ".claude", "settings.json")
    }: ` +
    `stall-watch may only write inside ${join(project, ".claude")}; ` +
    `run it from ${home}: cd -- ${
      shellQuote(home)
    } && stall-watch install --scope user`,
  ]);
  assert.deepEqual(await listTree(home), ["project/"]);
  const remove = io(project, { HOME: home });
  assert.equal(await main(["uninstall", "--scope", "user"], remove), 1);
  assert.match(
    errLines(remove)[0] ?? "",
    /^stall-watch: Cannot uninstall from .*settings\.json: stall-watch may only write inside /,
  );

  assert.equal(
    await main(["install", "--scope", "user"], io(home, { HOME: home })),
    0,
  );
  assert.deepEqual(
    stopHandlers(
      await Deno.readTextFile(join(home, ".claude", "settings.json")),
    ),
    [HANDLER],
  );
});

Deno.test("install --scope user follows CLAUDE_CONFIG_DIR", async () => {
  await using project = await tempProject();
  const dir = project.dir;
  const config = join(dir, "cfg");
  const fake = io(dir, { CLAUDE_CONFIG_DIR: config, HOME: "/nonexistent" });
  assert.equal(await main(["install", "--scope", "user"], fake), 1);
  assert.match(
    errLines(fake)[0] ?? "",
    /that file is not in a \.claude folder: make the change by hand \(stall-watch install --scope user --dry-run shows it\)$/,
  );
  const dry = io(dir, { CLAUDE_CONFIG_DIR: config });
  assert.equal(
    await main(["install", "--scope", "user", "--dry-run"], dry),
    0,
  );
  assert.match(dry.stdout.join(""), /^--- .*cfg[\\/]settings\.json\n/);
  assert.match(dry.stdout.join(""), /\nnote: Cannot install into /);

  const claudeDir = io(dir, { CLAUDE_CONFIG_DIR: join(dir, ".claude") });
  assert.equal(await main(["install", "--scope", "user"], claudeDir), 0);
  assert.ok(await exists(join(dir, ".claude", "settings.json")));
});

Deno.test(
  skipWhere(
    "install refuses a settings file that is a symlink to outside .claude",
    PLANTS_POSIX_LINKS,
  ),
  async () => {
    await using project = await tempProject();
    const dir = project.dir;
    await Deno.mkdir(join(dir, ".claude"));
    const outside = join(dir, "dotfiles-settings.json");
    await Deno.writeTextFile(outside, "{}\n");
    await Deno.symlink(outside, join(dir, ".claude", "settings.local.json"));
    const fake = io(dir);
    assert.equal(await main(["install"], fake), 1);
    assert.match(
      errLines(fake)[0] ?? "",
      /^stall-watch: Refusing settings file ".*": it is a symlink to outside /,
    );
    assert.equal(await Deno.readTextFile(outside), "{}\n");
  },
);

Deno.test("install and uninstall reject bad options with one line and exit 64", async () => {
  await using project = await tempProject();
  const dir = project.dir;
  for (
    const [args, message] of [
      [
        ["install", "--scope", "global"],
        'Bad value for "--scope": "global" (use project, local or user)',
      ],
      [
        ["install", "--timeout", "0"],
        'Bad value for "--timeout": "0" is not a whole number of seconds from 1 to 3600',
      ],
      [
        ["install", "--timeout=1.5"],
        'Bad value for "--timeout": "1.5" is not a whole number of seconds from 1 to 3600',
      ],
      [
        ["install", "--timeout"],
        'Option "--timeout" needs a value: run "stall-watch help install"',
      ],
      [
        ["install", "--dry-run=yes"],
        'Option "--dry-run" takes no value: run "stall-watch help install"',
      ],
      [
        ["install", "project"],
        'Unexpected argument "project" for "install": run "stall-watch help install"',
      ],
      [
        ["uninstall", "--watch"],
        'Unknown option "--watch" for "uninstall": run "stall-watch help uninstall"',
      ],
    ] as const
  ) {
    const fake = io(dir);
    assert.equal(await main([...args], fake), 64, args.join(" "));
    assert.deepEqual(errLines(fake), [`stall-watch: ${message}`]);
  }
  assert.deepEqual(await listTree(dir), []);
});

Deno.test("uninstall removes only stall-watch and lists files that still register it", async () => {
  await using project = await tempProject();
  const dir = project.dir;
  await Deno.mkdir(join(dir, ".claude"));
  const shared = join(dir, ".claude", "settings.json");
  const other =
    '{\n  "hooks": {\n    "Stop": [{ "hooks": [{ "type": "command", "command": "echo bye" }] }]\n  }\n}\n';
  await Deno.writeTextFile(shared, other);
  assert.equal(
    await main(["install", "--scope", "project", "--watch"], io(dir)),
    0,
  );
  assert.equal(await main(["install", "--scope", "local"], io(dir)), 0);
  const fake = io(dir);
  assert.equal(await main(["uninstall", "--scope", "project"], fake), 0);
  assert.equal(await Deno.readTextFile(shared), other);
  assert.equal(
    fake.stdout.at(-1),
    `stall-watch is still registered in ${LOCAL} (remove with --scope local)\n`,
  );
  const none = io(dir);
  assert.equal(await main(["uninstall", "--scope", "project"], none), 0);
  assert.equal(none.stdout[0], `${PROJECT}: nothing to change\n`);
});

/** The handler `install` should register for the process `runStallWatch` starts. */
function expectedHandlerArgv(): string[] {
  return hookCommand().map((a) =>
    Deno.build.os === "windows" ? a.replaceAll("\\", "/") : a
  );
}

Deno.test("install as a process under the release flags registers a command that really runs the hook", async () => {
  await using project = await tempProject();
  const dir = project.dir;
  const installed = await runStallWatch({
    cwd: dir,
    args: ["install", "--subagents"],
  });
  assert.equal(installed.code, 0, installed.stderr);
  assert.deepEqual(await listTree(dir), [
    ".claude/",
    ".claude/settings.local.json",
  ]);
  const settings = JSON.parse(
    await Deno.readTextFile(join(dir, ".claude", "settings.local.json")),
  );
  const handler = settings.hooks.Stop[0].hooks[0];
  const argv = expectedHandlerArgv();
  if (Deno.build.os === "windows") {
    assert.deepEqual([handler.command, ...handler.args], argv);
  } else {
    assert.equal(
      handler.command,
      `cd -- "$CLAUDE_PROJECT_DIR" || exit 1; ${
        argv.map(shellQuote).join(" ")
      }`,
    );
  }
  assert.equal(handler.timeout, 30);

  // Run the registered handler the way Claude Code does, from a subfolder
  // of the project, on a stalled transcript: it must block (exit 2).
  const sub = join(dir, "src");
  await Deno.mkdir(sub);
  const payload = JSON.stringify({
    session_id: "installed",
    transcript_path: join(FIXTURES_DIR, "pending_tool_use_split_lines.jsonl"),
    cwd: sub,
    hook_event_name: "Stop",
    stop_hook_active: false,
  });
  const [program, args] = Deno.build.os === "windows"
    ? [handler.command, handler.args]
    : ["sh", ["-c", handler.command]];
  const child = new Deno.Command(program, {
    args,
    cwd: sub,
    env: { CLAUDE_PROJECT_DIR: dir, STALL_WATCH_LAG_WAIT_MS: "0" },
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode(payload));
  await writer.close();
  const result = await child.output();
  const stderr = new TextDecoder().decode(result.stderr);
  assert.equal(result.code, 2, stderr);
  assert.match(stderr, /stall_watch: 1 pending tool_use in /);
  if (Deno.build.os !== "windows") {
    assert.ok(
      await exists(join(dir, ".claude", "stall_watch", "installed.json")),
      "state went to the project's .claude, not the subfolder's",
    );
    assert.equal(await exists(join(sub, ".claude")), false);
  }
});

Deno.test("install and uninstall as processes keep every write inside .claude", async () => {
  await using temp = await tempProject();
  const home = temp.dir;
  const project = join(home, "project");
  await Deno.mkdir(project);
  // The user folder via CLAUDE_CONFIG_DIR: changing HOME would also move
  // Deno's own cache when run from source.
  const env = { CLAUDE_CONFIG_DIR: join(home, ".claude") };
  const refused = await runStallWatch({
    cwd: project,
    args: ["install", "--scope", "user"],
    env,
  });
  assert.equal(refused.code, 1);
  assert.equal(refused.stderr.trim().split("\n").length, 1, refused.stderr);
  assert.deepEqual(await listTree(home), ["project/"]);

  const user = await runStallWatch({
    cwd: home,
    args: ["install", "--scope", "user", "--watch"],
    env,
  });
  assert.equal(user.code, 0, user.stderr);
  const again = await runStallWatch({
    cwd: home,
    args: ["install", "--scope", "user", "--watch"],
    env,
  });
  assert.equal(again.stdout, `${PROJECT}: nothing to change\n`);
  const removed = await runStallWatch({
    cwd: home,
    args: ["uninstall", "--scope", "user"],
    env,
  });
  assert.equal(removed.code, 0, removed.stderr);
  assert.equal(
    await Deno.readTextFile(join(home, ".claude", "settings.json")),
    '{\n  "hooks": {}\n}\n',
  );
  const tree = await listTree(home);
  const backups = tree.filter((p) =>
    /^\.claude\/stall_watch\/backups\/settings\.json\..*\.bak$/.test(p)
  );
  assert.equal(
    backups.length,
    1,
    "one backup: only uninstall replaced a file",
  );
  assert.deepEqual(
    tree.filter((p) => !backups.includes(p)),
    [
      ".claude/",
      ".claude/settings.json",
      ".claude/stall_watch/",
      ".claude/stall_watch/.gitignore",
      ".claude/stall_watch/backups/",
      "project/",
    ],
  );
});

Deno.test({
  ...skipWhere(
    "the registered command ends with exit 1, never the block's 2, when the project folder is gone (dash and bash)",
    SHELL_FORM,
  ),
  fn: async () => {
    await using project = await tempProject();
    const installed = await runStallWatch({
      cwd: project.dir,
      args: ["install"],
    });
    assert.equal(installed.code, 0, installed.stderr);
    const settings = JSON.parse(
      await Deno.readTextFile(
        join(project.dir, ".claude", "settings.local.json"),
      ),
    );
    const command: string = settings.hooks.Stop[0].hooks[0].command;
    const shells = ["/bin/sh", "/bin/dash", "/bin/bash"].filter((shell) => {
      try {
        return Deno.statSync(shell).isFile;
      } catch {
        return false;
      }
    });
    assert.ok(shells.length > 0);
    for (const shell of shells) {
      const result = await new Deno.Command(shell, {
        args: ["-c", command],
        cwd: project.dir,
        env: { CLAUDE_PROJECT_DIR: join(project.dir, "moved-away") },
        stdin: "null",
        stdout: "piped",
        stderr: "piped",
      }).output();
      // dash's failed cd returns 2: passed on, Claude Code would block.
      assert.equal(result.code, 1, shell);
    }
  },
});
