/**
 * Archives the compiled binaries for a release and writes `SHA256SUMS`.
 *
 *   deno run --allow-read --allow-write=dist --allow-run \
 *     .github/scripts/package.ts [--dist dist] [--out dist/release]
 *
 * For each target, `<dist>/<triple>/stall-watch[.exe]` becomes
 * `<out>/stall-watch-<triple>.tar.gz` (Linux, macOS) or `.zip` (Windows),
 * with the binary at the archive's top level and its execute bit kept.
 * The names carry no version, so `releases/latest/download/<name>` is a
 * stable URL. `SHA256SUMS` lists every archive in the format
 * `sha256sum -c` reads. Uses the system `tar` and `zip`.
 *
 * @module
 */

import { basename, dirname, join, resolve } from "node:path";
import { binaryPath, REPO_ROOT, type Target, TARGETS } from "./compile.ts";

/** The archive file name of a target. */
export function archiveName(target: Target): string {
  return `stall-watch-${target.triple}.${target.archive}`;
}

/** The argv that archives `binary` into `archive` (both absolute). */
export function archiveCommand(
  target: Target,
  binary: string,
  archive: string,
): string[] {
  return target.archive === "zip"
    ? ["zip", "-j", "-X", "-q", archive, binary]
    : ["tar", "-czf", archive, "-C", dirname(binary), basename(binary)];
}

/** `SHA256SUMS` text: `<hex>  <name>` per file, sorted by name. */
export function checksumsText(
  sums: ReadonlyArray<{ name: string; sha256: string }>,
): string {
  return [...sums]
    .sort((a, b) => a.name < b.name ? -1 : a.name > b.name ? 1 : 0)
    .map((s) => `${s.sha256}  ${s.name}\n`)
    .join("");
}

/** The hex SHA-256 of a file. Requires `--allow-read`. */
export async function sha256File(path: string): Promise<string> {
  const digest = await crypto.subtle.digest(
    "SHA-256",
    await Deno.readFile(path),
  );
  return [...new Uint8Array(digest)]
    .map((b) => b.toString(16).padStart(2, "0"))
    .join("");
}

/**
 * Archives every target's binary from `distDir` into `outDir` and writes
 * `outDir/SHA256SUMS`. Requires `--allow-read`, `--allow-write` for
 * `outDir` and `--allow-run` for `tar` and `zip`.
 *
 * @returns The files written.
 * @throws {Error} When a binary is missing or an archiver fails.
 */
export async function packageRelease(
  distDir: string,
  outDir: string,
  targets: readonly Target[] = TARGETS,
): Promise<string[]> {
  const missing = [];
  for (const target of targets) {
    const binary = binaryPath(distDir, target);
    if (!await Deno.stat(binary).then((i) => i.isFile, () => false)) {
      missing.push(binary);
    }
  }
  if (missing.length > 0) {
    throw new Error(`Missing binaries (compile first): ${missing.join(", ")}`);
  }
  await Deno.mkdir(outDir, { recursive: true });
  const sums = [];
  const written = [];
  for (const target of targets) {
    const archive = join(outDir, archiveName(target));
    await Deno.remove(archive).catch(() => {});
    const [program, ...args] = archiveCommand(
      target,
      binaryPath(distDir, target),
      archive,
    );
    const result = await new Deno.Command(program as string, {
      args,
      stdout: "inherit",
      stderr: "inherit",
    }).output().catch((error) => {
      throw new Error(`Cannot run ${program}: ${(error as Error).message}`);
    });
    if (!result.success) throw new Error(`${program} failed for ${archive}`);
    sums.push({ name: archiveName(target), sha256: await sha256File(archive) });
    written.push(archive);
  }
  const sumsPath = join(outDir, "SHA256SUMS");
  await Deno.writeTextFile(sumsPath, checksumsText(sums));
  return [...written, sumsPath];
}

if (import.meta.main) {
  const args = [...Deno.args];
  const option = (name: string, fallback: string) => {
    const at = args.indexOf(name);
    return at === -1 ? fallback : args[at + 1] ?? fallback;
  };
  const dist = resolve(REPO_ROOT, option("--dist", "dist"));
  const out = resolve(REPO_ROOT, option("--out", join("dist", "release")));
  try {
    for (const file of await packageRelease(dist, out)) console.log(file);
  } catch (error) {
    console.error(`package: ${(error as Error).message}`);
    Deno.exit(1);
  }
}
