/**
 * The config file is found relative to the start directory a command is
 * given (`io.cwd`), not the test runner's working directory, so commands
 * such as `doctor` judge the project they were pointed at.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { loadSettings } from "../../src/config/load_settings.ts";
import { tempProject } from "../support/temp_project.ts";

Deno.test("loadSettings() reads .claude/stall-watch.jsonc under the given cwd", async () => {
  await using project = await tempProject();
  await Deno.mkdir(join(project.dir, ".claude"));
  await Deno.writeTextFile(
    join(project.dir, ".claude", "stall-watch.jsonc"),
    '{ "max_retries": 5, // five\n "bogus": 1 }\n',
  );
  const loaded = await loadSettings({}, project.dir);
  assert.equal(loaded.settings.maxRetries, 5);
  assert.equal(loaded.configPath, ".claude/stall-watch.jsonc");
  assert.deepEqual(loaded.problems.map((p) => p.source), [
    ".claude/stall-watch.jsonc:2:2",
  ]);
});
