/**
 * The confined-write primitive: no symlink followed, no FIFO opened, no
 * hard-linked file written, no foreign file touched; and no write that
 * bypasses it anywhere in `src/`.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  appendConfined,
  confinedFile,
  createConfinedFile,
  ensureOwnGitignore,
  readConfinedText,
  removeConfined,
  renameConfined,
  replaceConfinedFile,
  touchConfined,
} from "../../src/confined/confined_file.ts";
import {
  confinedPath,
  ConfinementError,
  ensureConfinedDir,
  OWN_GITIGNORE,
} from "../../src/confined/confine.ts";
import { withFileLock } from "../../src/confined/file_lock.ts";
import {
  tempFixture,
  type TempProject,
  tempProject,
} from "../support/temp_project.ts";
import {
  PLANTS_POSIX_LINKS,
  skipWhere,
  USES_FILE_MODES,
} from "../support/platform.ts";

const SRC = fileURLToPath(new URL("../../src/", import.meta.url));

/** A project with `.claude/sw` and a file outside it to protect; disposal removes both. */
function confinedProject(): Promise<
  TempProject & {
    sw: ReturnType<typeof ensureConfinedDir>;
    outside: string;
    project: string;
  }
> {
  return tempFixture(async (root) => {
    const project = join(root, "project");
    await Deno.mkdir(join(project, ".claude"), { recursive: true });
    const outside = join(root, "authorized_keys");
    await Deno.writeTextFile(outside, "ssh-ed25519 AAAA keep\n");
    return {
      sw: ensureConfinedDir(project, ".claude/sw", "test"),
      outside,
      project,
    };
  });
}

const own = () => true;
const bytes = (text: string) => new TextEncoder().encode(text);

Deno.test({
  ...skipWhere(
    "no confined write follows a symlink, opens a FIFO or writes a hard-linked file",
    PLANTS_POSIX_LINKS,
  ),
  fn: async () => {
    await using fixture = await confinedProject();
    const { sw: dir, outside } = fixture;
    const fifo = join(dir, "fifo");
    const made = new Deno.Command("mkfifo", { args: [fifo] }).outputSync();
    assert.ok(made.success);
    await Deno.symlink(outside, join(dir, "link"));
    await Deno.link(outside, join(dir, "hard"));
    for (const name of ["link", "fifo", "hard"]) {
      const attempts: [string, () => unknown][] = [
        ["append", () => appendConfined(dir, name, bytes("x\n"), "t", own)],
        ["replace", () => replaceConfinedFile(dir, name, "x", "t")],
        ["touch", () => touchConfined(dir, name, "t", Date.now())],
        ["read", () => readConfinedText(join(dir, name), "t")],
        ["rename", () => renameConfined(dir, name, "other", "t", own)],
        [
          "lock",
          () =>
            withFileLock(
              dir,
              name,
              { timeoutMs: 10, sleep: async () => {} },
              () => {},
            ),
        ],
      ];
      for (const [op, attempt] of attempts) {
        // A FIFO opened would block here forever; refused, it returns at once.
        await assert.rejects(
          async () => await attempt(),
          ConfinementError,
          `${op} ${name}`,
        );
      }
      assert.equal(removeConfined(dir, name, "t", own), "kept", name);
    }
    assert.equal(await Deno.readTextFile(outside), "ssh-ed25519 AAAA keep\n");
    assert.equal((await Deno.lstat(join(dir, "link"))).isSymlink, true);
  },
});

Deno.test("confined writes touch an existing file only when it proves to be stall-watch's", async () => {
  await using fixture = await confinedProject();
  const { sw: dir } = fixture;
  const foreign = join(dir, "settings.local.json");
  await Deno.writeTextFile(foreign, '{"env":{"API_KEY":"k"}}\n');
  const isState = (text: string) => text.startsWith('{"retries"');
  assert.throws(
    () =>
      replaceConfinedFile(dir, "settings.local.json", "{}", "t", {
        isOwn: isState,
      }),
    ConfinementError,
  );
  assert.throws(
    () =>
      appendConfined(dir, "settings.local.json", bytes("x\n"), "t", isState),
    ConfinementError,
  );
  assert.equal(
    removeConfined(dir, "settings.local.json", "t", isState),
    "kept",
  );
  assert.equal(await Deno.readTextFile(foreign), '{"env":{"API_KEY":"k"}}\n');
  // A non-empty file is no prune marker.
  await Deno.writeTextFile(join(dir, ".last-prune"), "data");
  assert.throws(
    () => touchConfined(dir, ".last-prune", "t", 0),
    ConfinementError,
  );
  assert.equal(await Deno.readTextFile(join(dir, ".last-prune")), "data");
  // Its own files it does change.
  replaceConfinedFile(dir, "s.json", '{"retries":{}}', "t", {
    isOwn: isState,
  });
  replaceConfinedFile(dir, "s.json", '{"retries":{"a":1}}', "t", {
    isOwn: isState,
  });
  assert.equal(
    readConfinedText(join(dir, "s.json"), "t"),
    '{"retries":{"a":1}}',
  );
  assert.equal(removeConfined(dir, "s.json", "t", isState), "removed");
});

Deno.test({
  ...skipWhere(
    "createConfinedFile() is exclusive and creates the file with the given mode",
    USES_FILE_MODES,
  ),
  fn: async () => {
    await using fixture = await confinedProject();
    const { sw: dir, outside } = fixture;
    await Deno.symlink(outside, join(dir, "planted.bak"));
    assert.throws(
      () => createConfinedFile(dir, "planted.bak", bytes("secret"), "t"),
      Deno.errors.AlreadyExists,
    );
    assert.equal(await Deno.readTextFile(outside), "ssh-ed25519 AAAA keep\n");
    createConfinedFile(dir, "a.bak", bytes("secret"), "t", 0o600);
    assert.equal((await Deno.stat(join(dir, "a.bak"))).mode! & 0o777, 0o600);
    createConfinedFile(dir, "b.bak", bytes("x"), "t", 0o644);
    // The umask may take bits away, never add any.
    const mode = (await Deno.stat(join(dir, "b.bak"))).mode! & 0o777;
    assert.equal(mode & ~0o644, 0, mode.toString(8));
    assert.equal(mode & 0o600, 0o600, mode.toString(8));
  },
});

Deno.test("ensureConfinedDir() gives the top-most folder it creates a .gitignore, created exclusively", async () => {
  await using fixture = await confinedProject();
  const { sw: dir, project } = fixture;
  assert.equal(
    await Deno.readTextFile(join(dir, ".gitignore")),
    OWN_GITIGNORE,
  );
  // Below a folder it did not create: the new folder gets its own.
  await Deno.mkdir(join(project, ".claude/theirs"));
  ensureConfinedDir(project, ".claude/theirs/deep/er", "test");
  assert.ok(
    (await Deno.lstat(join(project, ".claude/theirs/deep/.gitignore")))
      .isFile,
  );
  await assert.rejects(() =>
    Deno.lstat(join(project, ".claude/theirs/.gitignore"))
  );
  await assert.rejects(() => Deno.lstat(join(project, ".claude/.gitignore")));
});

Deno.test({
  ...skipWhere(
    "ensureConfinedDir() refuses a .claude that is a symlink out of the project, and symlinks below it",
    PLANTS_POSIX_LINKS,
  ),
  fn: async () => {
    await using temp = await tempProject();
    const root = temp.dir;
    const home = join(root, "home/.ssh");
    await Deno.mkdir(home, { recursive: true });
    const project = join(root, "project");
    await Deno.mkdir(project);
    await Deno.symlink(home, join(project, ".claude"));
    assert.throws(
      () => ensureConfinedDir(project, ".claude/stall_watch", "state folder"),
      /symlink to .*outside/,
    );
    assert.deepEqual([...Deno.readDirSync(home)], []);
    // A .claude linked to a folder inside the project is the user's choice.
    await Deno.remove(join(project, ".claude"));
    await Deno.mkdir(join(project, "config"));
    await Deno.symlink(join(project, "config"), join(project, ".claude"));
    ensureConfinedDir(project, ".claude/stall_watch", "state folder");
    // Below .claude, even a symlink that stays inside is refused.
    await Deno.mkdir(join(project, "config/real"));
    await Deno.symlink(
      join(project, "config/real"),
      join(project, "config/alias"),
    );
    assert.throws(
      () => ensureConfinedDir(project, ".claude/alias", "state folder"),
      /symlink, and stall-watch writes through none/,
    );
  },
});

Deno.test({
  ...skipWhere(
    "ensureConfinedDir() judges a link from its text, hop by hop: a hop out of the start directory is refused there even when it links back inside",
    PLANTS_POSIX_LINKS,
  ),
  fn: async () => {
    await using temp = await tempProject();
    const project = join(temp.dir, "project");
    await Deno.mkdir(join(project, ".claude/real"), { recursive: true });
    await Deno.mkdir(join(project, "config"));
    // Outside the start directory, a hop that links straight back inside:
    // the resolved path is inside, the walk leaves at the first hop.
    await Deno.symlink(join(project, ".claude/real"), join(temp.dir, "hop"));
    await Deno.symlink("../../hop", join(project, ".claude/stall_watch"));
    assert.throws(
      () => ensureConfinedDir(project, ".claude/stall_watch", "state folder"),
      (error: Error) =>
        error instanceof ConfinementError &&
        error.message.endsWith(
          `.claude/stall_watch is a symlink to outside ${
            join(project, ".claude")
          } (to "../../hop")`,
        ),
    );
    // A link further on names the hop that left.
    await Deno.symlink("../config/out", join(project, ".claude/chain"));
    await Deno.symlink("../../hop", join(project, "config/out"));
    assert.throws(
      () => ensureConfinedDir(project, ".claude/chain", "state folder"),
      /symlink to outside .* \(via .*\/config\/out -> "\.\.\/\.\.\/hop"\)$/,
    );
    // `.claude` itself, through the same hop: refused at the hop.
    await Deno.rename(join(project, ".claude"), join(project, "claude-real"));
    await Deno.symlink(join(temp.dir, "hop"), join(project, ".claude"));
    assert.throws(
      () => ensureConfinedDir(project, ".claude/stall_watch", "state folder"),
      /\.claude is a symlink to outside .*project \(to ".*\/hop"\)$/,
    );
    // And a `.claude` linked inside the start directory, by a relative
    // chain, is the user's choice: it works, and its recheck holds.
    await Deno.remove(join(project, ".claude"));
    await Deno.symlink("claude-alias", join(project, ".claude"));
    await Deno.symlink("./claude-real", join(project, "claude-alias"));
    const dir = ensureConfinedDir(project, ".claude/state", "state folder");
    createConfinedFile(dir, "x.json", bytes("{}"), "state file");
    assert.equal(
      Deno.readTextFileSync(join(project, "claude-real/state/x.json")),
      "{}",
    );
  },
});

/** Deno calls that change the file system. */
const WRITE_API =
  /\bDeno\.(writeFile|writeTextFile|create|remove|rename|mkdir|truncate|chmod|chown|symlink|link|utime|makeTempDir|makeTempFile|copyFile)(Sync)?\b/;
const OPEN = /\bDeno\.open(Sync)?\(([^;]*?)\)/gs;
const NODE_FS = /from\s+["']node:fs(\/promises)?["']/;

Deno.test("every write in src/ goes through src/confined/ (a new Deno write call elsewhere fails here)", () => {
  const offenders: string[] = [];
  const walk = (dir: string) => {
    for (const entry of Deno.readDirSync(dir)) {
      const path = join(dir, entry.name);
      if (entry.isDirectory) {
        if (path !== join(SRC, "confined")) walk(path);
        continue;
      }
      if (!entry.name.endsWith(".ts")) continue;
      const text = Deno.readTextFileSync(path);
      const where = path.slice(SRC.length).replaceAll("\\", "/");
      if (WRITE_API.test(text)) {
        offenders.push(`${where}: ${WRITE_API.exec(text)?.[0]}`);
      }
      if (NODE_FS.test(text)) offenders.push(`${where}: imports node:fs`);
      for (const open of text.matchAll(OPEN)) {
        // Reading is fine anywhere; only `{ read: true }` is.
        if (!/,\s*\{\s*read:\s*true\s*\}\s*$/.test(open[2] ?? "")) {
          offenders.push(`${where}: ${open[0].replace(/\s+/g, " ")}`);
        }
      }
      const writes = text.match(
        /\.(writeSync|write|truncateSync|truncate|utimeSync|utime)\(/g,
      ) ?? [];
      if (writes.length > 0 && where !== "shared/real_io.ts") {
        offenders.push(`${where}: ${writes.join(", ")}`);
      }
    }
  };
  walk(SRC);
  assert.deepEqual(offenders, []);
  // The scan sees what it should: the primitive itself is full of them.
  const primitive = Deno.readTextFileSync(
    join(SRC, "confined/confined_file.ts"),
  );
  assert.ok(WRITE_API.test(primitive) && OPEN.test(primitive));
});

Deno.test("confinedPath() and confinedFile() refuse a Windows device name anywhere below .claude, on every platform", async () => {
  await using p = await confinedProject();
  for (
    const path of [
      ".claude/COM1.log",
      ".claude/con",
      ".claude/AUX/state",
      ".claude/sw/Nul. .jsonl",
      ".claude/LPT1",
    ]
  ) {
    assert.throws(
      () => confinedPath(p.project, path, "event log"),
      /is a Windows device name/,
      path,
    );
  }
  assert.equal(
    confinedPath(p.project, ".claude/console.log", "event log"),
    join(p.project, ".claude/console.log"),
  );
  for (const name of ["CON.json", "nul", "com9.lock"]) {
    assert.throws(
      () => confinedFile(p.sw, name),
      /is a Windows device name/,
      name,
    );
  }
});

Deno.test({
  ...skipWhere(
    "ensureOwnGitignore() keeps its own .gitignore, creates a missing one, and moves one it did not write aside unchanged (at most 3 kept)",
    PLANTS_POSIX_LINKS,
  ),
  fn: async () => {
    await using p = await confinedProject();
    const ignore = join(p.sw, ".gitignore");
    const text = () => Deno.readTextFileSync(ignore);
    ensureOwnGitignore(p.sw);
    assert.equal(text(), OWN_GITIGNORE);
    ensureOwnGitignore(p.sw);
    assert.deepEqual(
      [...Deno.readDirSync(p.sw)].map((e) => e.name).sort(),
      [".gitignore"],
    );
    for (const planted of ["!*\n", "*.json\n", { link: p.outside }]) {
      await Deno.remove(ignore);
      if (typeof planted === "string") {
        await Deno.writeTextFile(ignore, planted);
      } else await Deno.symlink(planted.link, ignore);
      ensureOwnGitignore(p.sw);
      assert.equal(text(), OWN_GITIGNORE);
    }
    assert.equal(Deno.readTextFileSync(`${ignore}.quarantined-1`), "!*\n");
    assert.equal(Deno.readTextFileSync(`${ignore}.quarantined-2`), "*.json\n");
    assert.ok(Deno.lstatSync(`${ignore}.quarantined-3`).isSymlink);
    assert.equal(
      Deno.readTextFileSync(p.outside),
      "ssh-ed25519 AAAA keep\n",
      "the link's target untouched",
    );
    // Past 3 aside, a fourth foreign one is left as it is.
    await Deno.remove(ignore);
    await Deno.writeTextFile(ignore, "!*\n");
    ensureOwnGitignore(p.sw);
    assert.equal(text(), "!*\n");
  },
});
