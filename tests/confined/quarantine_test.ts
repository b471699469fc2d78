/**
 * Moving an unusable entry aside (`quarantineConfined`): a rename inside
 * the checked folder that moves the entry itself, whatever it is, opens
 * nothing, keeps at most a few, and moves nothing that changed since it
 * was looked at.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import {
  lstatOrNull,
  quarantineConfined,
  unusableShape,
} from "../../src/confined/confined_file.ts";
import {
  ConfinementError,
  ensureConfinedDir,
} from "../../src/confined/confine.ts";
import { tempProject } from "../support/temp_project.ts";
import { PLANTS_POSIX_LINKS, skipWhere } from "../support/platform.ts";

Deno.test({
  ...skipWhere(
    "quarantineConfined() moves a symlink, FIFO, folder or hard link aside as it is, and never touches what it leads to",
    PLANTS_POSIX_LINKS,
  ),
  fn: async () => {
    await using project = await tempProject();
    const outside = join(project.dir, "authorized_keys");
    await Deno.writeTextFile(outside, "keep\n", { mode: 0o600 });
    const dir = ensureConfinedDir(project.dir, ".claude/sw", "test");
    await Deno.symlink(outside, join(dir, "link"));
    const made = new Deno.Command("mkfifo", { args: [join(dir, "fifo")] })
      .outputSync();
    assert.ok(made.success);
    await Deno.mkdir(join(dir, "folder"));
    await Deno.writeTextFile(join(dir, "folder/inside"), "x");
    await Deno.link(outside, join(dir, "hard"));
    const shapes: Record<string, string> = {
      link: "it is a symlink",
      fifo: "it is a FIFO",
      folder: "it is a directory",
      hard: "it has 2 hard links",
    };
    for (const [name, shape] of Object.entries(shapes)) {
      const seen = Deno.lstatSync(join(dir, name));
      assert.equal(unusableShape(seen), shape);
      // A FIFO opened would block here forever: a rename opens nothing.
      assert.equal(
        quarantineConfined(dir, name, "t", seen, 3),
        `${name}.quarantined-1`,
      );
      assert.equal(lstatOrNull(join(dir, name)), null, name);
      const moved = Deno.lstatSync(join(dir, `${name}.quarantined-1`));
      assert.equal(moved.ino, seen.ino, `${name} moved itself`);
    }
    assert.equal(await Deno.readTextFile(outside), "keep\n");
    assert.equal((await Deno.stat(outside)).mode! & 0o777, 0o600);
    assert.equal(
      await Deno.readLink(join(dir, "link.quarantined-1")),
      outside,
    );
    assert.equal(
      await Deno.readTextFile(join(dir, "folder.quarantined-1/inside")),
      "x",
    );
  },
});

Deno.test({
  ...skipWhere(
    "quarantineConfined() keeps at most maxKept entries, and moves nothing that changed since it was looked at",
    PLANTS_POSIX_LINKS,
  ),
  fn: async () => {
    await using project = await tempProject();
    const dir = ensureConfinedDir(project.dir, ".claude/sw", "test");
    const path = join(dir, "s.json");
    for (let n = 1; n <= 3; n++) {
      await Deno.symlink("/nowhere", path);
      assert.equal(
        quarantineConfined(dir, "s.json", "t", Deno.lstatSync(path), 3),
        `s.json.quarantined-${n}`,
      );
    }
    await Deno.symlink("/nowhere", path);
    assert.equal(
      quarantineConfined(dir, "s.json", "t", Deno.lstatSync(path), 3),
      null,
      "all three names taken",
    );
    assert.ok(Deno.lstatSync(path).isSymlink, "left where it was");
    // Looked at, then replaced (by a hook that moved it and made a fresh
    // file): the fresh file is not moved.
    await using other = await tempProject();
    const fresh = ensureConfinedDir(other.dir, ".claude/sw", "test");
    await Deno.symlink("/nowhere", join(fresh, "s.lock"));
    const seen = Deno.lstatSync(join(fresh, "s.lock"));
    await Deno.remove(join(fresh, "s.lock"));
    await Deno.writeTextFile(join(fresh, "s.lock"), "");
    assert.throws(
      () => quarantineConfined(fresh, "s.lock", "t", seen, 3),
      ConfinementError,
    );
    assert.ok(Deno.lstatSync(join(fresh, "s.lock")).isFile);
  },
});
