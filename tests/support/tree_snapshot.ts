/**
 * Snapshots of a directory tree (names, kinds, symlink targets, content
 * hashes) to show that a run wrote nothing where it must not.
 *
 * @module
 */

import { join } from "node:path";

/** Relative path -> what is there (`dir`, `link -> target`, `file <sha256>`, ...). */
export type TreeSnapshot = Map<string, string>;

/**
 * Snapshots everything below `root` without following symlinks.
 *
 * @param skip Relative paths (and everything below them) to leave out.
 */
export async function snapshotTree(
  root: string,
  skip: (relative: string) => boolean = () => false,
): Promise<TreeSnapshot> {
  const snapshot: TreeSnapshot = new Map();
  const visit = async (relative: string): Promise<void> => {
    for await (const entry of Deno.readDir(join(root, relative))) {
      const rel = relative ? `${relative}/${entry.name}` : entry.name;
      if (skip(rel)) continue;
      const path = join(root, rel);
      if (entry.isSymlink) {
        snapshot.set(rel, `link -> ${await Deno.readLink(path)}`);
      } else if (entry.isDirectory) {
        snapshot.set(rel, "dir");
        await visit(rel);
      } else if (entry.isFile) {
        snapshot.set(rel, `file ${await sha256(path)}`);
      } else {
        snapshot.set(rel, "special"); // FIFO, socket, device
      }
    }
  };
  await visit("");
  return snapshot;
}

/** True for `.claude` and everything below it. */
export function insideClaude(relative: string): boolean {
  return relative === ".claude" || relative.startsWith(".claude/");
}

async function sha256(path: string): Promise<string> {
  const digest = await crypto.subtle.digest(
    "SHA-256",
    await Deno.readFile(path),
  );
  return Array.from(
    new Uint8Array(digest),
    (b) => b.toString(16).padStart(2, "0"),
  )
    .join("");
}
