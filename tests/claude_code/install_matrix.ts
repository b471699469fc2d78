/**
 * Installs the releases of the real-client matrix (or those named by
 * `STALL_WATCH_CLAUDE_RELEASES`) from npm into their caches, one after the
 * other, and says how each went, one line per release. `.ci/run` runs it
 * before the tests, so the tier finds every release installed.
 *
 * Exits 1 when a release could not be installed (the tier then skips it
 * with the reason), else 0.
 *
 * @module
 */

import {
  claudeCacheDir,
  findOrInstallClaude,
  selectedReleases,
} from "./support/claude_install.ts";

let failed = 0;
for (
  const release of selectedReleases(Deno.env.get("STALL_WATCH_CLAUDE_RELEASES"))
) {
  const started = performance.now();
  const path = await findOrInstallClaude(release);
  const seconds = ((performance.now() - started) / 1000).toFixed(0);
  if (path) {
    console.log(`Claude Code ${release}: ${path} (${seconds} s)`);
  } else {
    failed++;
    console.log(
      `Claude Code ${release}: not installed into ${claudeCacheDir(release)}`,
    );
  }
}
if (failed > 0) Deno.exit(1);
