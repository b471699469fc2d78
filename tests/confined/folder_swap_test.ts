/**
 * A folder checked by `ensureConfinedDir` can be swapped for a symlink
 * before the write it was checked for: while a hook waits up to 3 s for
 * the session lock, say. Every confined write checks the folder chain
 * again (device and inode) right before its create, open, rename or
 * removal, and none follows the swap out of `.claude`. And no file's mode
 * is set by name after it was written, where a symlink renamed over it in
 * between would take the change.
 *
 * Each test makes the swap happen inside the window it is about (through
 * the lock wait's `sleep`, or right after the bytes are written), so it is
 * the same race every time, not a timing.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import {
  appendConfined,
  removeConfined,
  renameConfined,
  replaceConfinedFile,
  touchConfined,
} from "../../src/confined/confined_file.ts";
import {
  ConfinementError,
  ensureConfinedDir,
} from "../../src/confined/confine.ts";
import { withFileLock } from "../../src/confined/file_lock.ts";
import { StateStore } from "../../src/guardrails/state.ts";
import { serializeState } from "../../src/guardrails/session_state.ts";
import { appendEvents, formatEvent } from "../../src/events/event_log.ts";
import { tempFixture, type TempProject } from "../support/temp_project.ts";
import { writeSettingsFile } from "../../src/client_settings/settings_file.ts";
import { PLANTS_POSIX_LINKS, skipWhere } from "../support/platform.ts";

const KEYS = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIB victim@laptop\n";
const STATE = serializeState({
  retries: { toolu_a: 1 },
  lastRecoveryAt: 0,
  configNotice: null,
});
const EVENT = formatEvent({
  event: "healthy_stop",
  sessionId: "s",
  ts: 1,
  data: { reason: "answered" },
});

/** A project with `.claude`, and an outside folder holding files under the names the writes use. */
interface Scene {
  project: string;
  /** The folder a swap points the checked folder at. */
  outside: string;
  /** Replaces `folder` (absolute) with a symlink to {@link outside}. */
  swap(folder: string): void;
  /** Names, modes, mtimes and contents of everything in {@link outside}. */
  outsideNow(): string[];
}

/** A fresh {@link Scene}: `await using scene = await tempScene();`. */
function tempScene(): Promise<Scene & TempProject> {
  return tempFixture(async (root) => {
    const project = join(root, "project");
    const outside = join(root, "home", ".ssh");
    await Deno.mkdir(join(project, ".claude"), { recursive: true });
    await Deno.mkdir(outside, { recursive: true });
    const files: Record<string, string> = {
      authorized_keys: KEYS,
      "s.json": STATE,
      "events.jsonl": EVENT,
      ".last-prune": "",
    };
    for (const [name, text] of Object.entries(files)) {
      await Deno.writeTextFile(join(outside, name), text, { mode: 0o600 });
      await Deno.chmod(join(outside, name), 0o600);
      const old = new Date(Date.UTC(2020, 0, 1));
      await Deno.utime(join(outside, name), old, old);
    }
    return {
      project,
      outside,
      swap(folder: string) {
        Deno.renameSync(folder, `${folder}.checked`);
        Deno.symlinkSync(outside, folder);
      },
      outsideNow: () =>
        [...Deno.readDirSync(outside)].map((entry) => {
          const path = join(outside, entry.name);
          const info = Deno.lstatSync(path);
          const text = info.isFile ? Deno.readTextFileSync(path) : "";
          return `${entry.name} ${
            info.mode?.toString(8)
          } ${info.mtime?.getTime()} ${JSON.stringify(text)}`;
        }).sort(),
    };
  }, "stall-watch-swap-");
}

const own = () => true;
const bytes = (text: string) => new TextEncoder().encode(text);

/**
 * Runs `write` and checks that it changed nothing outside, then that it
 * refused with one {@link ConfinementError}.
 */
async function refusedWithoutWriting(
  scene: Scene,
  what: string,
  write: () => unknown,
): Promise<void> {
  const before = scene.outsideNow();
  const error = await Promise.resolve().then(write).then(
    () => null,
    (e: unknown) => e,
  );
  assert.deepEqual(
    scene.outsideNow(),
    before,
    `${what} wrote through the swapped folder`,
  );
  assert.ok(error instanceof ConfinementError, `${what}: ${error}`);
}

type Dir = ReturnType<typeof ensureConfinedDir>;

/** Each confined write, on a folder holding files under the names it uses. */
const WRITES: Record<string, (dir: Dir) => unknown> = {
  "replaceConfinedFile()": (dir) =>
    replaceConfinedFile(dir, "s.json", STATE, "t"),
  "appendConfined()": (dir) =>
    appendConfined(dir, "events.jsonl", bytes(EVENT), "t", own),
  "renameConfined()": (dir) =>
    renameConfined(dir, "events.jsonl", "events.jsonl.1", "t", own),
  "removeConfined()": (dir) => removeConfined(dir, "s.json", "t", own),
  "touchConfined()": (dir) =>
    touchConfined(dir, ".last-prune", "t", Date.now()),
  "withFileLock()": (dir) =>
    withFileLock(
      dir,
      "s.lock",
      { timeoutMs: 100, sleep: () => Promise.resolve() },
      () => Promise.resolve(),
    ),
};

for (const [name, write] of Object.entries(WRITES)) {
  Deno.test({
    ...skipWhere(
      `${name} refuses a folder swapped for a symlink after the check, and writes nothing through it`,
      PLANTS_POSIX_LINKS,
    ),
    fn: async () => {
      await using scene = await tempScene();
      const dir = ensureConfinedDir(scene.project, ".claude/sw", "test");
      scene.swap(join(scene.project, ".claude/sw"));
      await refusedWithoutWriting(scene, name, () => write(dir));
    },
  });
}

Deno.test({
  ...skipWhere(
    "a .claude swapped for a symlink out of the project after the check is refused too",
    PLANTS_POSIX_LINKS,
  ),
  fn: async () => {
    await using scene = await tempScene();
    const dir = ensureConfinedDir(scene.project, ".claude", "test");
    scene.swap(join(scene.project, ".claude"));
    await refusedWithoutWriting(
      scene,
      "replaceConfinedFile()",
      () => replaceConfinedFile(dir, "s.json", STATE, "t"),
    );
  },
});

/**
 * Holds the lock `<folder>/<name>` as a stuck hook would. The returned
 * `sleep` is the waiting hook's: at its first call (the lock is taken, so
 * the hook waits) it swaps the folder and lets the lock go.
 */
function lockSwappedDuringWait(
  scene: Scene,
  folder: string,
  name: string,
): { sleep: (ms: number) => Promise<void>; waits: () => number } {
  Deno.mkdirSync(folder, { recursive: true });
  const holder = Deno.openSync(join(folder, name), {
    create: true,
    write: true,
  });
  holder.lockSync(true);
  let waits = 0;
  return {
    sleep: () => {
      if (waits++ === 0) {
        scene.swap(folder);
        holder.unlockSync();
        holder.close();
      }
      return Promise.resolve();
    },
    waits: () => waits,
  };
}

Deno.test({
  ...skipWhere(
    "a state folder swapped for a symlink while the hook waits for the session lock is refused after the wait",
    PLANTS_POSIX_LINKS,
  ),
  fn: async () => {
    await using scene = await tempScene();
    const folder = join(scene.project, ".claude/stall_watch");
    const { sleep, waits } = lockSwappedDuringWait(scene, folder, "s.lock");
    const store = new StateStore({
      cwd: scene.project,
      stateDir: ".claude/stall_watch",
      sleep,
    });
    await refusedWithoutWriting(
      scene,
      "the state update",
      () =>
        store.update("s", ({ state }) => ({
          state: { ...state, retries: { toolu_b: 1 } },
          result: null,
        })),
    );
    assert.ok(waits() > 0, "the update waited for the lock");
  },
});

Deno.test({
  ...skipWhere(
    "an event-log folder swapped for a symlink while a hook waits to rotate the log is refused after the wait",
    PLANTS_POSIX_LINKS,
  ),
  fn: async () => {
    await using scene = await tempScene();
    const folder = join(scene.project, ".claude/logs");
    const { sleep, waits } = lockSwappedDuringWait(
      scene,
      folder,
      "events.jsonl.lock",
    );
    // Full: the next line rotates it.
    await Deno.writeTextFile(
      join(folder, "events.jsonl"),
      EVENT.repeat(Math.ceil(4096 / EVENT.length)),
    );
    await refusedWithoutWriting(scene, "the rotation", () =>
      appendEvents([{
        event: "healthy_stop",
        sessionId: "s",
        ts: 2,
        data: { reason: "answered" },
      }], {
        cwd: scene.project,
        path: ".claude/logs/events.jsonl",
        maxBytes: 4096,
        sleep,
      }));
    assert.ok(waits() > 0, "the rotation waited for the lock");
  },
});

/**
 * Runs `fn` while every `FsFile.writeSync` that writes to a file whose name
 * passes `target` is followed, once, by `attack(name)`: the moment after the
 * bytes landed and before the writer's next step.
 */
async function afterWriteOf(
  folder: string,
  target: (name: string) => boolean,
  attack: (path: string) => void,
  fn: () => Promise<unknown> | unknown,
): Promise<void> {
  const proto = Deno.FsFile.prototype;
  const original = proto.writeSync;
  let done = false;
  proto.writeSync = function (this: Deno.FsFile, data: Uint8Array): number {
    const written = original.call(this, data);
    if (!done) {
      const name = [...Deno.readDirSync(folder)].map((e) => e.name).find(
        target,
      );
      if (name !== undefined) {
        done = true;
        attack(join(folder, name));
      }
    }
    return written;
  };
  try {
    await fn();
  } finally {
    proto.writeSync = original;
  }
  assert.ok(done, "the attack ran");
}

/** Renames a symlink to `to` over `path`, as a racing process would. */
function linkOver(path: string, to: string): void {
  Deno.symlinkSync(to, `${path}.planted`);
  Deno.renameSync(`${path}.planted`, path);
}

Deno.test({
  ...skipWhere(
    "a symlink renamed over a fresh temp file never takes the new file's mode to the file it leads to",
    PLANTS_POSIX_LINKS,
  ),
  fn: async () => {
    await using scene = await tempScene();
    const dir = ensureConfinedDir(scene.project, ".claude/sw", "test");
    const key = join(scene.outside, "authorized_keys");
    const before = scene.outsideNow();
    await afterWriteOf(
      dir,
      (name) => name.endsWith(".tmp"),
      (path) => linkOver(path, key),
      () => replaceConfinedFile(dir, "s.json", STATE, "t", { mode: 0o644 }),
    );
    assert.equal(Deno.statSync(key).mode! & 0o777, 0o600);
    assert.deepEqual(scene.outsideNow(), before);
  },
});

Deno.test({
  ...skipWhere(
    "install: a symlink to ~/.ssh/id_ed25519 renamed over a fresh settings backup leaves the key's mode alone",
    PLANTS_POSIX_LINKS,
  ),
  fn: async () => {
    await using scene = await tempScene();
    const key = join(scene.outside, "id_ed25519");
    await Deno.writeTextFile(key, "PRIVATE KEY\n", { mode: 0o600 });
    const settings = join(scene.project, ".claude/settings.local.json");
    const previous = '{\n  "hooks": {}\n}\n';
    await Deno.writeTextFile(settings, previous, { mode: 0o644 });
    await Deno.chmod(settings, 0o644);
    const backups = join(scene.project, ".claude/stall_watch/backups");
    await Deno.mkdir(backups, { recursive: true });
    await afterWriteOf(
      backups,
      (name) => name.endsWith(".bak"),
      (path) => linkOver(path, key),
      () =>
        writeSettingsFile(
          scene.project,
          ".claude/settings.local.json",
          '{\n  "hooks": { "Stop": [] }\n}\n',
          {
            previous: { path: settings, exists: true, text: previous },
            now: 0,
          },
        ),
    );
    assert.equal(Deno.statSync(key).mode! & 0o777, 0o600);
    assert.equal(Deno.readTextFileSync(key), "PRIVATE KEY\n");
  },
});
