/**
 * Hostile clones, links: symlinks, hard links, FIFOs and a folder swapped
 * for a link, planted where stall-watch writes (its marker, log and state)
 * or reads (Claude Code's settings, `.gitignore`, `.claude` itself). Each is
 * refused, never written or read through, with one line; the rest of the
 * run goes on. The promises every hostile test checks are in
 * `hostile_clone_e2e_test.ts`; the in-process tests of every confined write
 * are in `tests/confined/`.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import {
  attack,
  attackTest,
  COMMANDS,
  EVERY_COMMAND,
} from "../support/hostile_attack.ts";
import {
  AUTHORIZED_KEYS,
  cloneWith,
  LOCAL_SETTINGS,
  mkfifo,
} from "../support/hostile_clone.ts";
import {
  NEEDS_STRACE,
  reachedThrough,
  tracedRun,
} from "../support/syscall_trace.ts";
import { tempProject } from "../support/temp_project.ts";
import { PLANTINGS } from "../support/hostile_plantings.ts";
import { spawnStallWatch } from "../support/hook_process.ts";
import { linesOf, tempSandbox } from "../support/sandbox.ts";
import { pendingTranscript, stopPayload } from "../support/transcripts.ts";
import { HOSTILE_CLONES, offLinux, skipWhere } from "../support/platform.ts";

/** Watches `/proc/<pid>/fd` to see which files the hook has open. */
const READS_PROC = offLinux("watches /proc/<pid>/fd, which only Linux has");

attackTest(
  "links",
  "a prune marker symlinked to ~/.ssh/authorized_keys is not written through when the hook nudges",
  [PLANTINGS.pruneMarkerToSsh!],
  ["hook", "watch"],
  (c, results) => {
    assert.equal(results.get("hook")?.[0]?.code, 2, "the hook still nudges");
    assert.equal(
      Deno.readTextFileSync(join(c.home, ".ssh/authorized_keys")),
      AUTHORIZED_KEYS,
    );
    assert.ok(
      Deno.lstatSync(join(c.project, ".claude/stall_watch/.last-prune"))
        .isSymlink,
    );
  },
);

attackTest(
  "links",
  "an event log symlinked to settings.local.json is refused, the stop still judged",
  [PLANTINGS.logToSettings!],
  ["hook", "hook"],
  (c, results) => {
    assert.equal(results.get("hook")?.[0]?.code, 2);
    assert.match(results.get("hook")![0]!.stderr, /event log/);
    assert.equal(
      Deno.readTextFileSync(join(c.project, ".claude/settings.local.json")),
      LOCAL_SETTINGS,
    );
  },
);

attackTest(
  "links",
  "an event log hard-linked to a file outside is never written",
  [PLANTINGS.logHardLink!],
  ["hook", "watch"],
  (c) => {
    assert.equal(
      Deno.readTextFileSync(join(c.home, ".ssh/authorized_keys")),
      AUTHORIZED_KEYS,
    );
  },
);

/**
 * Says "ready", reads a process id from stdin, then polls `/proc/<pid>/fd`
 * until that process has the file `path` open and exits 0 (1 when the
 * process ended first). Run by `deno eval`, which may read `/proc` (the
 * test's own permissions may not); started before the hook, so its own
 * start-up eats none of the hook's wait.
 */
const UNTIL_OPEN = `
const [path] = Deno.args;
console.log("ready");
const buf = new Uint8Array(64);
const n = await Deno.stdin.read(buf);
const pid = new TextDecoder().decode(buf.subarray(0, n ?? 0)).trim();
for (;;) {
  let entries;
  try {
    entries = [...Deno.readDirSync(\`/proc/\${pid}/fd\`)];
  } catch {
    Deno.exit(1);
  }
  for (const entry of entries) {
    try {
      if (Deno.readLinkSync(\`/proc/\${pid}/fd/\${entry.name}\`) === path) Deno.exit(0);
    } catch {
      // closed meanwhile
    }
  }
  await new Promise((resolve) => setTimeout(resolve, 1));
}
`;

/** A watcher of one file, started and ready before the process it watches. */
async function fileOpenWatcher(path: string) {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["eval", UNTIL_OPEN, path],
    stdin: "piped",
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const reader = child.stdout.getReader();
  const first = await reader.read();
  assert.match(new TextDecoder().decode(first.value), /^ready/);
  reader.releaseLock();
  return {
    /** Resolves once process `pid` has the file open. */
    async until(pid: number): Promise<void> {
      const writer = child.stdin.getWriter();
      await writer.write(new TextEncoder().encode(`${pid}\n`));
      await writer.close();
      const status = await child.status;
      await child.stdout.cancel();
      assert.ok(
        status.success,
        `process ${pid} ended before it opened ${path}`,
      );
    },
  };
}

/** What one try of the swap during the lock wait saw. */
interface SwapTry {
  outsideChanged: boolean;
  code: number;
  stderr: string;
}

/**
 * Holds the session lock as a stuck hook would, starts the hook, and once
 * the hook has the lock file open (it checked the folder and now waits up to
 * 3 s) swaps the state folder for a symlink outside, then lets the lock go.
 */
async function swapDuringLockWait(): Promise<SwapTry> {
  await using s = await tempSandbox();
  await Deno.writeTextFile(s.transcript, pendingTranscript("toolu_swap"));
  const folder = join(s.project, ".claude/stall_watch");
  await Deno.mkdir(folder, { recursive: true });
  const lockPath = join(folder, "swap.lock");
  const holder = await Deno.open(lockPath, { create: true, write: true });
  await holder.lock(true);
  const before = await s.snapshotOutsideClaude();
  const watcher = await fileOpenWatcher(lockPath);
  const hook = await spawnStallWatch({
    cwd: s.project,
    stdin: stopPayload("swap", s.transcript, s.project),
  });
  try {
    await watcher.until(hook.pid);
    await Deno.rename(folder, `${folder}.checked`);
    await Deno.symlink(s.outside, folder);
  } finally {
    await holder.unlock();
    holder.close();
  }
  const result = await hook.finished;
  const after = await s.snapshotOutsideClaude();
  return {
    outsideChanged: JSON.stringify([...after]) !== JSON.stringify([...before]),
    code: result.code,
    stderr: result.stderr,
  };
}

Deno.test({
  ...skipWhere(
    "hostile clone, links: a state folder swapped for a symlink while the hook waits for the session lock is refused after the wait",
    READS_PROC,
  ),
  fn: async () => {
    // The swap must land inside the hook's 3 s wait; on a machine so busy
    // that it did not (the hook gave up waiting first), try again.
    let tried: SwapTry | null = null;
    for (let attempt = 0; attempt < 5; attempt++) {
      tried = await swapDuringLockWait();
      if (tried.outsideChanged || !tried.stderr.includes("Timed out")) break;
    }
    assert.ok(tried !== null);
    assert.equal(
      tried.outsideChanged,
      false,
      `the hook wrote through the swapped folder: ${tried.stderr}`,
    );
    assert.equal(tried.code, 0, tried.stderr);
    assert.match(
      tried.stderr,
      /^stall_watch: cannot use session state \(Refusing lock file in ".*stall_watch": .*stall_watch was replaced after stall-watch checked it\); allowing the stop/,
    );
    assert.equal(linesOf(tried.stderr).length, 1, tried.stderr);
  },
});

/** Where each of install, uninstall and doctor must say the settings file is unusable. */
function assertSettingsRefused(
  results: Map<string, { code: number; stdout: string; stderr: string }[]>,
  why = "it is not a regular file",
): void {
  for (const name of ["install", "uninstall"]) {
    const r = results.get(name)![0]!;
    assert.equal(r.code, 1, `${name}: ${r.stderr}`);
    assert.match(
      r.stderr,
      new RegExp(
        `^stall-watch: Cannot read settings file ".*settings\\.local\\.json": ${why}\n$`,
      ),
      name,
    );
  }
  const doctor = results.get("doctor")![0]!;
  assert.match(
    doctor.stdout,
    new RegExp(`settings\\.local\\.json.*${why}`),
    doctor.stdout,
  );
}

Deno.test({
  ...skipWhere(
    "hostile clone, links: a settings file committed as a symlink to /dev/zero is refused with one line, never read without end",
    HOSTILE_CLONES,
  ),
  fn: () =>
    attack(
      [{
        name: "settings.local.json -> /dev/zero",
        files: { ".claude/settings.local.json": { link: "/dev/zero" } },
      }],
      ["install", "uninstall", "doctor"],
      // A link out of the project is refused on its text before the
      // file type is looked at.
      (_c, results) =>
        assertSettingsRefused(
          results,
          "it leads out of .*project \\(.*settings\\.local\\.json is a symlink to /dev/zero\\)",
        ),
      "Read",
    ),
});

Deno.test({
  ...skipWhere(
    "hostile clone, links: a settings file that is a FIFO is refused with one line, never opened",
    HOSTILE_CLONES,
  ),
  fn: () =>
    attack(
      [{
        name: "settings.local.json is a FIFO",
        after: (project) =>
          mkfifo(join(project, ".claude/settings.local.json")),
      }],
      ["install", "uninstall", "doctor"],
      (_c, results) => assertSettingsRefused(results),
      "Read",
    ),
});

Deno.test({
  ...skipWhere(
    "hostile clone, links: a .gitignore that is a symlink to /dev/zero or a FIFO is passed over; install still installs",
    HOSTILE_CLONES,
  ),
  fn: () =>
    attack(
      [{
        name: ".gitignore -> /dev/zero, .claude/.gitignore a FIFO",
        files: { ".gitignore": { link: "/dev/zero" } },
        after: (project) => mkfifo(join(project, ".claude/.gitignore")),
      }],
      ["install"],
      (c, results) => {
        const install = results.get("install")![0]!;
        assert.equal(install.code, 0, install.stderr);
        assert.match(
          Deno.readTextFileSync(join(c.project, ".claude/settings.local.json")),
          /"Stop"/,
        );
      },
      "Read",
    ),
});

Deno.test({
  ...skipWhere(
    "hostile clone, links: a committed .claude -> missing symlink makes install exit 1 with one clear line, never exit 3",
    HOSTILE_CLONES,
  ),
  // attack() fails any command that exits 3.
  fn: () =>
    attack(
      [{
        name: ".claude -> missing",
        files: { ".claude": { link: "missing" } },
      }],
      ["install", "uninstall", "doctor", "hook", "watch", "reset"],
      (_c, results) => {
        const install = results.get("install")![0]!;
        assert.equal(install.code, 1, install.stderr);
        assert.match(
          install.stderr,
          /^stall-watch: Cannot use settings folder "\.claude": .*\.claude is a symlink to "missing", which does not exist\n$/,
        );
      },
      "Read",
    ),
});

/** A key name in the victim's file the config link leads to. */
const VICTIM_KEY = "registry.corp.example:AKIAVICTIMKEY";

attackTest(
  "links",
  "a config symlinked to a file outside the project is refused, its keys never echoed",
  [{
    name: "the config is a symlink to ~/.docker/config.json",
    files: {
      ".claude/stall-watch.jsonc": { link: "../../home/.docker/config.json" },
    },
    // The victim's file, whose key names are secrets of their own.
    after: async (_project, root) => {
      await Deno.mkdir(join(root, "home/.docker"), { recursive: true });
      await Deno.writeTextFile(
        join(root, "home/.docker/config.json"),
        JSON.stringify({ [VICTIM_KEY]: { auth: "c2VjcmV0" } }),
      );
    },
  }],
  ["hook", "doctor", "log"],
  (_c, results) => {
    for (const [name, [r]] of results) {
      const output = r!.stdout + r!.stderr;
      assert.ok(!output.includes(VICTIM_KEY), `${name} echoed: ${output}`);
    }
    const doctor = results.get("doctor")![0]!.stdout;
    assert.match(
      doctor,
      /cannot read the config file: it leads out of .*\/project \(.*\/project\/\.claude\/stall-watch\.jsonc is a symlink to \.\.\/\.\.\/home\/\.docker\/config\.json\)/,
    );
    assert.equal(results.get("hook")![0]!.code, 2, "the stop is still judged");
  },
);

attackTest(
  "links",
  "a state folder linked out of the start directory is refused from the link's text at its first hop, even when a hop outside links back inside",
  [{
    name: ".claude/stall_watch -> ../../hop, hop -> project/.claude/real",
    files: {
      ".claude/real/keep": "",
      ".claude/stall_watch": { link: "../../hop" },
    },
    // Outside the clone, a hop straight back into its .claude: a resolved
    // path would call the link inside; the walk refuses it at the hop.
    after: (project, root) =>
      Deno.symlink(join(project, ".claude/real"), join(root, "hop")),
  }],
  ["hook", "watch"],
  (_c, results) => {
    for (const name of ["hook", "watch"]) {
      assert.match(
        results.get(name)![0]!.stderr,
        /stall_watch is a symlink to outside .*\/project\/\.claude \(to "\.\.\/\.\.\/hop"\)/,
        name,
      );
    }
  },
);

/** Where the links of the trace test lead: a host no run may reach. */
const NET_TARGET = "/net/stallwatch-attacker-host/s";

/** A committed Stop hook whose program lies below `tools`. */
const TOOLS_HOOK = {
  ".claude/settings.local.json": JSON.stringify({
    hooks: {
      Stop: [{
        hooks: [{
          type: "command",
          command: '"$CLAUDE_PROJECT_DIR"/tools/stall-watch',
          timeout: 30,
        }],
      }],
    },
  }),
};

/**
 * What the trace test plants, each a link to {@link NET_TARGET}, with the
 * commands that use it (every command for the folders) and what else the
 * repository commits.
 */
const NET_LINKS: [string, string[], Record<string, string>?][] = [
  [".claude/stall_watch", EVERY_COMMAND],
  [".claude", EVERY_COMMAND],
  [".claude/settings.local.json", ["install", "uninstall", "doctor"]],
  [".claude/settings.json", ["install", "uninstall", "doctor"]],
  [".gitignore", ["install"]],
  [".claude/.gitignore", ["install"]],
  [".claude/stall-watch.jsonc", ["hook", "watch", "doctor"]],
  [".claude/stall_watch/events.jsonl", ["hook", "log"]],
  [".claude/stall_watch/events.jsonl.1", ["log"]],
  ["tools", ["doctor"], TOOLS_HOOK],
];

Deno.test({
  ...skipWhere(
    "hostile clone, links: a folder or file stall-watch uses, linked to /net/<host>/..., is refused or passed over without a system call of any command following the link",
    HOSTILE_CLONES,
    ...NEEDS_STRACE,
  ),
  fn: async () => {
    for (const [link, commands, extra] of NET_LINKS) {
      await using temp = await tempProject("stall-watch-hostile-");
      const c = await cloneWith(
        temp.dir,
        [{
          name: "net link",
          files: { ...extra, [link]: { link: NET_TARGET } },
        }],
        "Read",
      );
      for (const name of commands) {
        const run = await tracedRun({
          ...COMMANDS[name]!(c),
          // A refused config leaves the watcher its default 600 s.
          env: {
            HOME: c.home,
            STALL_WATCH_IDLE_SECONDS: "0.05",
            STALL_WATCH_WATCH_MAX_SECONDS: "1",
          },
        });
        assert.notEqual(run.code, 3, `${name}: ${run.stderr}`);
        assert.deepEqual(
          reachedThrough(run.paths, join(c.project, link), NET_TARGET),
          [],
          `${name} followed ${link} -> ${NET_TARGET}`,
        );
      }
    }
  },
});

attackTest(
  "links",
  "Codex's state folder .codex/stall_watch symlinked into the home folder is refused: codex-stop writes nothing through it and allows with one line",
  [PLANTINGS.codexStateToHome!],
  ["codex-stop", "codex-stop"],
  (c, results) => {
    for (const run of results.get("codex-stop") ?? []) {
      assert.equal(run.code, 0, run.stderr);
      assert.match(
        run.stderr,
        /cannot use session state \(Refusing state folder/,
      );
    }
    assert.equal(
      Deno.readTextFileSync(join(c.home, ".ssh/authorized_keys")),
      AUTHORIZED_KEYS,
    );
    assert.deepEqual(
      [...Deno.readDirSync(join(c.home, ".ssh"))].map((e) => e.name).sort(),
      ["authorized_keys", "id_ed25519"],
    );
  },
);

attackTest(
  "links",
  ".codex itself a symlink into the home folder: codex-stop writes nothing through it, and neither does any Claude Code command",
  [PLANTINGS.codexToHome!],
  ["codex-stop", "hook", "watch", "doctor"],
  (c, results) => {
    const [stop] = results.get("codex-stop") ?? [];
    assert.equal(stop?.code, 0, stop?.stderr);
    assert.match(
      stop!.stderr,
      /\.codex is a symlink to outside .*\(to "\.\.\/home\/\.ssh"\)/,
    );
    assert.deepEqual(
      [...Deno.readDirSync(join(c.home, ".ssh"))].map((e) => e.name).sort(),
      ["authorized_keys", "id_ed25519"],
    );
  },
);

attackTest(
  "links",
  "in .codex, FIFOs as prune marker and lock and an event log hard-linked outside: codex-stop opens no FIFO, writes no link, and still nudges",
  [PLANTINGS.codexFifosAndHardLinks!],
  ["codex-stop"],
  (c, results) => {
    const [stop] = results.get("codex-stop") ?? [];
    assert.equal(stop?.code, 2, stop?.stderr);
    assert.match(stop!.stderr, /event log not written/);
    assert.equal(
      Deno.readTextFileSync(join(c.home, ".ssh/authorized_keys")),
      AUTHORIZED_KEYS,
    );
  },
);
