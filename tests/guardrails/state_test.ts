import assert from "node:assert/strict";
import { join } from "node:path";
import {
  emptyState,
  parseState,
  serializeState,
  StateStore,
} from "../../src/guardrails/state.ts";
import { tempProject } from "../support/temp_project.ts";

const sleep = (ms: number) =>
  new Promise<void>((resolve) => setTimeout(resolve, ms));

Deno.test("parseState() turns corrupt or wrongly shaped files into an empty state with a note", () => {
  assert.deepEqual(parseState("{not json"), {
    state: emptyState(),
    note: "state file is not valid JSON",
  });
  assert.deepEqual(parseState("[1]"), {
    state: emptyState(),
    note: "state file is not a JSON object",
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

Deno.test("StateStore.update() starts from an empty state when the file is corrupt", async () => {
  await using project = await tempProject();
  const dir = join(project.dir, ".claude/stall_watch");
  await Deno.mkdir(dir, { recursive: true });
  await Deno.writeTextFile(join(dir, "s1.json"), '{"retries": {"toolu_a": 2');
  const store = new StateStore({
    cwd: project.dir,
    stateDir: ".claude/stall_watch",
    sleep,
  });
  const note = await store.update(
    "s1",
    (loaded) => ({ state: loaded.state, result: loaded.note }),
  );
  assert.equal(note, "state file is not valid JSON");
  assert.deepEqual(
    parseState(await Deno.readTextFile(join(dir, "s1.json"))).state,
    emptyState(),
  );
});

Deno.test("StateStore.update() serialises concurrent updates in one process", async () => {
  await using project = await tempProject();
  const store = new StateStore({
    cwd: project.dir,
    stateDir: ".claude/stall_watch",
    sleep,
  });
  await Promise.all(
    Array.from({ length: 20 }, () =>
      store.update("s1", ({ state }) => ({
        state: { ...state, retries: { n: (state.retries.n ?? 0) + 1 } },
        result: null,
      }))),
  );
  assert.equal((store.read("s1")).state.retries.n, 20);
});
