import assert from "node:assert/strict";
import { join } from "node:path";
import {
  emptyState,
  isStateText,
  serializeState,
} from "../../src/guardrails/session_state.ts";
import { pruneStaleState } from "../../src/guardrails/state_sweeper.ts";
import { tempProject } from "../support/temp_project.ts";
import { ensureConfinedDir } from "../../src/confined/confine.ts";

Deno.test("pruneStaleState() removes old state, locks and temp files only", async () => {
  await using project = await tempProject();
  const dir = ensureConfinedDir(
    project.dir,
    ".claude/stall_watch",
    "state folder",
  );
  for (
    const name of [
      "old.json",
      "old.lock",
      "new.json",
      "new.lock",
      ".x.json.1.a.tmp",
      "events.jsonl",
      "notes.txt",
    ]
  ) {
    // Locks are empty and temp files hold state, as stall-watch writes them.
    const text = name.endsWith(".lock")
      ? ""
      : name.endsWith(".json") || name.endsWith(".tmp")
      ? serializeState(emptyState())
      : "{}";
    await Deno.writeTextFile(join(dir, name), text);
  }
  const day = 24 * 60 * 60 * 1000;
  const now = Date.now();
  const aged = new Date(now - 40 * day);
  for (
    const name of [
      "old.json",
      "old.lock",
      ".x.json.1.a.tmp",
      "events.jsonl",
      "notes.txt",
    ]
  ) {
    await Deno.utime(join(dir, name), aged, aged);
  }
  const removed = pruneStaleState(dir, now, isStateText);
  assert.deepEqual(removed.sort(), [
    ".x.json.1.a.tmp",
    "old.json",
    "old.lock",
  ]);
  const left = [];
  for await (const entry of Deno.readDir(dir)) left.push(entry.name);
  assert.deepEqual(left.sort(), [
    ".gitignore",
    "events.jsonl",
    "new.json",
    "new.lock",
    "notes.txt",
  ]);
});
