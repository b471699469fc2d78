import assert from "node:assert/strict";
import { join } from "node:path";
import { type StateRescue, StateStore } from "../../src/guardrails/state.ts";
import {
  emptyState,
  parseState,
  serializeState,
} from "../../src/guardrails/session_state.ts";
import { tempProject } from "../support/temp_project.ts";
import { failingUnlock } from "../support/failing_unlock.ts";

const sleep = (ms: number) =>
  new Promise<void>((resolve) => setTimeout(resolve, ms));

Deno.test("parseState() turns corrupt or wrongly shaped files into an empty state with a note", () => {
  assert.deepEqual(parseState("{not json"), {
    state: emptyState(),
    note: "state file is not valid JSON",
    corrupt: "it is not valid JSON",
  });
  assert.deepEqual(parseState("[1]"), {
    state: emptyState(),
    note: "state file is not a JSON object",
    corrupt: "it is not a JSON object",
  });
  const mixed = parseState(
    '{"retries": {"toolu_a": 2, "toolu_b": "x", "toolu_c": -1}, "last_recovery_at": "now"}',
  );
  assert.deepEqual(mixed.state.retries, { toolu_a: 2 });
  assert.equal(mixed.state.lastRecoveryAt, 0);
  assert.equal(mixed.note, "state file had 3 unusable field(s)");
});

Deno.test("parseState() reads what serializeState() writes", () => {
  const state = {
    retries: { toolu_a: 3 },
    lastRecoveryAt: 1700000000.5,
    configNotice: "abcd1234",
  };
  assert.deepEqual(parseState(serializeState(state)), { state, note: null });
});

Deno.test("StateStore.update() saves atomically and leaves no temporary files", async () => {
  await using project = await tempProject();
  const store = new StateStore({
    cwd: project.dir,
    stateDir: ".claude/stall_watch",
    sleep,
  });
  const seen = await store.update("s1", ({ state }) => ({
    state: { ...state, retries: { toolu_a: 1 } },
    result: state.retries,
  }));
  assert.deepEqual(seen, {});
  assert.deepEqual((store.read("s1")).state.retries, { toolu_a: 1 });
  const names = [];
  for await (
    const entry of Deno.readDir(join(project.dir, ".claude/stall_watch"))
  ) names.push(entry.name);
  assert.deepEqual(names.sort(), [".gitignore", "s1.json", "s1.lock"]);
});

Deno.test("StateStore.update() moves a corrupt file aside and starts from an empty state", async () => {
  await using project = await tempProject();
  const dir = join(project.dir, ".claude/stall_watch");
  await Deno.mkdir(dir, { recursive: true });
  const torn = '{"retries": {"toolu_a": 2';
  await Deno.writeTextFile(join(dir, "s1.json"), torn);
  const moved: StateRescue[] = [];
  const store = new StateStore({
    cwd: project.dir,
    stateDir: ".claude/stall_watch",
    sleep,
    onRescue: (entry) => moved.push(entry),
  });
  const loaded = await store.update(
    "s1",
    (loaded) => ({ state: loaded.state, result: loaded }),
  );
  assert.deepEqual(loaded, { state: emptyState(), note: null });
  assert.deepEqual(moved, [{
    file: "state",
    path: join(dir, "s1.json"),
    movedTo: "s1.json.quarantined-1",
    reason: "it is not valid JSON",
  }]);
  assert.equal(
    await Deno.readTextFile(join(dir, "s1.json.quarantined-1")),
    torn,
  );
  assert.deepEqual(
    parseState(await Deno.readTextFile(join(dir, "s1.json"))).state,
    emptyState(),
  );
});

/** Adds one to session s1's counter `n`, `times` times at once. */
function incrementAtOnce(store: StateStore, times: number): Promise<string[]> {
  return Promise.all(
    Array.from({ length: times }, () =>
      store.update("s1", ({ state }) => ({
        state: { ...state, retries: { n: (state.retries.n ?? 0) + 1 } },
        result: "saved",
      }))),
  );
}

Deno.test("StateStore.update() serialises concurrent updates in one process", async () => {
  await using project = await tempProject();
  const store = new StateStore({
    cwd: project.dir,
    stateDir: ".claude/stall_watch",
    sleep,
  });
  await incrementAtOnce(store, 20);
  assert.equal((store.read("s1")).state.retries.n, 20);
});

Deno.test("StateStore keeps a session whose state file is someone else's in its relocated folder, the file untouched, and says so once", async () => {
  await using project = await tempProject();
  const dir = join(project.dir, ".claude/stall_watch");
  await Deno.mkdir(dir, { recursive: true });
  for (const foreign of ["{not json", '{"theirs": true}\n']) {
    await Deno.writeTextFile(join(dir, "s1.json"), foreign);
    const told: StateRescue[] = [];
    const store = new StateStore({
      cwd: project.dir,
      stateDir: ".claude/stall_watch",
      sleep,
      onRescue: (entry) => told.push(entry),
    });
    for (let i = 0; i < 2; i++) {
      await store.update("s1", ({ state }) => ({
        state: {
          ...state,
          retries: { toolu_a: (state.retries.toolu_a ?? 0) + 1 },
        },
        result: null,
      }));
    }
    assert.equal(await Deno.readTextFile(join(dir, "s1.json")), foreign);
    const kept = join(dir, "relocated/s1.json");
    assert.deepEqual(JSON.parse(await Deno.readTextFile(kept)).retries, {
      toolu_a: 2,
    });
    assert.deepEqual(told, [{
      file: "state",
      path: join(dir, "s1.json"),
      keptIn: kept,
      reason: "it is not a file stall-watch wrote",
    }]);
    assert.deepEqual(store.read("s1").state.retries, { toolu_a: 2 });
    assert.deepEqual(store.sessionIds(), ["s1"]);
    const removed = await store.remove("s1");
    assert.equal(removed.status, "removed");
    assert.equal(await Deno.readTextFile(join(dir, "s1.json")), foreign);
    assert.equal(await Deno.stat(kept).catch(() => null), null);
  }
});

Deno.test("StateStore.update() keeps a finished update when the lock will not unlock, and closing the file frees the lock", async () => {
  await using project = await tempProject();
  using unlock = failingUnlock();
  const store = new StateStore({
    cwd: project.dir,
    stateDir: ".claude/stall_watch",
    sleep,
    lockTimeoutMs: 0,
  });
  assert.deepEqual(await incrementAtOnce(store, 1), ["saved"]);
  assert.equal(unlock.calls, 1);
  assert.deepEqual(store.takeUnlockErrors(), ["Lock violation."]);
  assert.deepEqual(store.takeUnlockErrors(), [], "taken once");
  // No wait allowed: the lock must already be free, released by the close.
  assert.deepEqual(await incrementAtOnce(store, 1), ["saved"]);
  assert.equal(store.read("s1").state.retries.n, 2);
  // The action's own failure still wins over the unlock's.
  await assert.rejects(
    store.update("s1", () => {
      throw new Error("change failed");
    }),
    /change failed/,
  );
  // Concurrent updates still serialise: each close lets the next one in.
  const waiting = new StateStore({
    cwd: project.dir,
    stateDir: ".claude/stall_watch",
    sleep,
  });
  await incrementAtOnce(waiting, 10);
  assert.equal(store.read("s1").state.retries.n, 12);
  assert.equal(waiting.takeUnlockErrors().length, 10);
});
