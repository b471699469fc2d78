/**
 * The walk that resolves a path below a root without ever stepping out of
 * it (`src/shared/regular_file.ts`), which the config file is read by.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { pathWithin } from "../../src/shared/regular_file.ts";
import { tempProject } from "../support/temp_project.ts";
import { PLANTS_POSIX_LINKS, skipWhere } from "../support/platform.ts";

Deno.test({
  ...skipWhere(
    "pathWithin() follows links that stay inside the root and stops at the first that leads out",
    PLANTS_POSIX_LINKS,
  ),
  fn: async () => {
    await using temp = await tempProject();
    const root = join(temp.dir, "project");
    await Deno.mkdir(join(root, ".claude/real"), { recursive: true });
    await Deno.mkdir(join(temp.dir, "outside"));
    await Deno.writeTextFile(join(root, ".claude/real/c.jsonc"), "{}");
    const link = (name: string, target: string) =>
      Deno.symlink(target, join(root, ".claude", name));
    await link("inside", "real/c.jsonc");
    await link("chain", "inside");
    await link("abs-inside", join(root, ".claude/real/c.jsonc"));
    await link("out", "../../outside/c.jsonc");
    await link("abs-out", "/etc/passwd");
    await link("unc", "//host/share/x");
    await link("dir-out", "../../outside");
    await link("climb", "real/../../../outside/c.jsonc");
    await link("abs-climb", `${root}/.claude/real/../../../outside`);
    await link("loop", "loop");
    const real = join(root, ".claude/real/c.jsonc");
    const walk = (rel: string) => pathWithin(root, root, rel);
    for (
      const rel of [".claude/inside", ".claude/chain", ".claude/abs-inside"]
    ) {
      assert.deepEqual(walk(rel), { inside: true, path: real }, rel);
    }
    assert.deepEqual(walk(".claude/missing/x"), {
      inside: true,
      path: join(root, ".claude/missing/x"),
    });
    for (
      const [rel, target] of [
        [".claude/out", "../../outside/c.jsonc"],
        [".claude/abs-out", "/etc/passwd"],
        [".claude/unc", "//host/share/x"],
        [".claude/dir-out/c.jsonc", "../../outside"],
        [".claude/climb", "real/../../../outside/c.jsonc"],
        [".claude/abs-climb/c.jsonc", `${root}/.claude/real/../../../outside`],
        [".claude/loop", "loop"],
      ]
    ) {
      const found = walk(rel!);
      assert.equal(found.inside, false, rel);
      assert.equal((found as { target: string }).target, target, rel);
    }
    // A root spelled through a link: its real path counts as inside too.
    await Deno.symlink(root, join(temp.dir, "alias"));
    assert.deepEqual(
      pathWithin(join(temp.dir, "alias"), root, ".claude/abs-inside"),
      { inside: true, path: join(temp.dir, "alias/.claude/real/c.jsonc") },
    );
  },
});
