/**
 * The kill switch's marker on disk (`src/decision/kill_switch.ts`): the
 * operator's marker anywhere local, the project's walked from the start
 * directory and never through a link leading out of it.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { killSwitchOf, lookAtMarker } from "../../src/decision/kill_switch.ts";
import { DEFAULT_SETTINGS } from "../../src/config/settings.ts";
import { tempProject } from "../support/temp_project.ts";
import { PLANTS_POSIX_LINKS, skipWhere } from "../support/platform.ts";

Deno.test("lookAtMarker() sees the operator's marker outside the project and the project's inside it, absolute or relative", async () => {
  await using temp = await tempProject();
  const project = join(temp.dir, "project");
  await Deno.mkdir(join(project, ".claude"), { recursive: true });
  const outside = join(temp.dir, "stall_off");
  assert.deepEqual(lookAtMarker(project, outside), { state: "absent" });
  await Deno.writeTextFile(outside, "");
  assert.deepEqual(lookAtMarker(project, outside), { state: "present" });
  assert.deepEqual(lookAtMarker(project, "../stall_off"), {
    state: "present",
  });
  const inside = join(project, ".claude/stall_watch.off");
  for (const file of [inside, ".claude/stall_watch.off"]) {
    assert.deepEqual(lookAtMarker(project, file), { state: "absent" });
  }
  await Deno.writeTextFile(inside, "");
  for (const file of [inside, ".claude/stall_watch.off"]) {
    assert.deepEqual(lookAtMarker(project, file), { state: "present" });
  }
  // The whole switch: the variable's marker, from the environment.
  const settings = {
    ...DEFAULT_SETTINGS,
    killSwitchFile: outside,
    killSwitchFileSource: "env STALL_WATCH_KILL_SWITCH_FILE",
  };
  assert.deepEqual(killSwitchOf(settings, { env: {}, cwd: project }), {
    active: true,
    source: `file ${outside}`,
  });
});

Deno.test({
  ...skipWhere(
    "lookAtMarker() refuses a project marker behind a folder linked out of the project, and counts a marker that is a link without following it",
    PLANTS_POSIX_LINKS,
  ),
  fn: async () => {
    await using temp = await tempProject();
    const project = join(temp.dir, "project");
    await Deno.mkdir(join(project, ".claude"), { recursive: true });
    await Deno.mkdir(join(temp.dir, "elsewhere"));
    await Deno.writeTextFile(join(temp.dir, "elsewhere/off"), "");
    await Deno.symlink("../../elsewhere", join(project, ".claude/out"));
    const look = lookAtMarker(project, ".claude/out/off");
    assert.equal(look.state, "refused");
    assert.match(
      (look as { reason: string }).reason,
      /\.claude\/out is a symlink leading out of /,
    );
    // A hop outside that links back inside is still a hop outside.
    await Deno.mkdir(join(project, ".claude/real"));
    await Deno.writeTextFile(join(project, ".claude/real/off"), "");
    await Deno.symlink(join(project, ".claude/real"), join(temp.dir, "hop"));
    await Deno.symlink("../../hop", join(project, ".claude/back"));
    assert.equal(lookAtMarker(project, ".claude/back/off").state, "refused");
    // A folder linked inside is followed; a marker that is a dangling
    // link counts as there, never followed.
    await Deno.symlink("real", join(project, ".claude/alias"));
    assert.equal(lookAtMarker(project, ".claude/alias/off").state, "present");
    await Deno.symlink("/nonexistent/x", join(project, ".claude/dangling"));
    assert.equal(lookAtMarker(project, ".claude/dangling").state, "present");
  },
});
