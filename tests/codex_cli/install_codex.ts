/**
 * Installs the pinned Codex CLI release from npm into its cache and says
 * how it went, in one line. `.ci/run` runs it before the tests, so the
 * Codex tier (`deno task test:codex`) finds it installed.
 *
 * Exits 1 when it could not be installed (the tier then skips with the
 * reason), else 0.
 *
 * @module
 */

import {
  CODEX_RELEASE,
  codexCacheDir,
  findOrInstallCodex,
} from "./support/codex_install.ts";

const started = performance.now();
const path = await findOrInstallCodex();
const seconds = ((performance.now() - started) / 1000).toFixed(0);
if (path) {
  console.log(`Codex CLI ${CODEX_RELEASE}: ${path} (${seconds} s)`);
} else {
  console.log(
    `Codex CLI ${CODEX_RELEASE}: not installed into ${codexCacheDir()}`,
  );
  Deno.exit(1);
}
