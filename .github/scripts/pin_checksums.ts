/**
 * Pins a release's checksums in the plugin: writes `hooks/release.sha256`
 * from the `SHA256SUMS` the release was packaged with, each archive's
 * hash under `v<version>/<archive>`. The plugin's fetch
 * (`hooks/fetch.sh`) installs an archive only when its hash is pinned
 * there for the plugin's own version; nothing the download carries is
 * trusted, so a release's binaries reach users only once this file,
 * written when the release was made, is in the plugin they install.
 *
 *   deno run --allow-read --allow-write=hooks \
 *     .github/scripts/pin_checksums.ts --sums dist/release/SHA256SUMS \
 *     [--version 0.2.0]
 *
 * The version defaults to `deno.json`'s and must equal it: the plugin
 * fetches the release of its own version. The release workflow runs it
 * after uploading the release and proposes the result as a pull request.
 *
 * @module
 */

import { join } from "node:path";
import { REPO_ROOT, TARGETS } from "./compile.ts";
import { archiveName } from "./package.ts";

/** The pins file, relative to the repository root. */
export const PINS_PATH = join("hooks", "release.sha256");

/** The comment that opens the pins file. */
export const PINS_HEADER =
  "# The SHA-256 of each release archive this plugin fetches, pinned in the\n" +
  "# plugin when the release is made (.github/scripts/pin_checksums.ts; see\n" +
  '# "To release" in docs/development.md): hooks/fetch.sh installs an archive\n' +
  "# only when its hash is listed here for the plugin's own version, whatever\n" +
  "# the download says. One line per archive: <sha256>  v<version>/<archive>.\n";

/** The pins file for `version` from a release's `SHA256SUMS` text. */
export function pinsText(version: string, sums: string): string {
  if (!/^[0-9A-Za-z.+-]+$/.test(version)) {
    throw new Error(`Cannot pin version "${version}": not a version`);
  }
  const archives = new Set(TARGETS.map(archiveName));
  const pinned = new Map<string, string>();
  for (const line of sums.split("\n")) {
    if (line.trim() === "") continue;
    const match = /^([0-9a-fA-F]{64}) [ *](\S+)$/.exec(line);
    if (!match) throw new Error(`Cannot read SHA256SUMS line: "${line}"`);
    const [, hash, name] = match as unknown as [string, string, string];
    if (!archives.has(name)) {
      throw new Error(`Cannot pin "${name}": not a release archive`);
    }
    pinned.set(name, hash.toLowerCase());
  }
  const missing = [...archives].filter((name) => !pinned.has(name));
  if (missing.length > 0) {
    throw new Error(`Cannot pin: SHA256SUMS lacks ${missing.join(", ")}`);
  }
  return PINS_HEADER + [...pinned].sort(([a], [b]) => a < b ? -1 : 1)
    .map(([name, hash]) => `${hash}  v${version}/${name}\n`).join("");
}

if (import.meta.main) {
  const args = [...Deno.args];
  const option = (name: string) => {
    const at = args.indexOf(name);
    return at === -1 ? undefined : args[at + 1];
  };
  try {
    const sums = option("--sums");
    if (sums === undefined) throw new Error("Missing --sums <SHA256SUMS>");
    const version = JSON.parse(
      await Deno.readTextFile(join(REPO_ROOT, "deno.json")),
    ).version as string;
    const asked = option("--version") ?? version;
    if (asked !== version) {
      throw new Error(
        `Cannot pin ${asked}: the plugin is version ${version} (deno.json)`,
      );
    }
    const text = pinsText(version, await Deno.readTextFile(sums));
    await Deno.writeTextFile(join(REPO_ROOT, PINS_PATH), text);
    console.log(`pinned ${TARGETS.length} archives of v${version}`);
  } catch (error) {
    console.error(`pin_checksums: ${(error as Error).message}`);
    Deno.exit(1);
  }
}
