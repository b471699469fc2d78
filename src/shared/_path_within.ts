/**
 * Where a relative path really leads, found one step at a time with
 * `lstat` and `readlink` from a root folder, never stepping out of it: a
 * symlink whose target lies outside is neither followed nor looked at, so
 * a committed link to `~/.aws/config`, `/dev/zero` or `\\host\share\x` is
 * refused before anything there is touched.
 *
 * @module
 */

import {
  dirname,
  isAbsolute,
  joinPath,
  NATIVE,
  normalize,
  type PathStyle,
  stepsBelow,
} from "./paths.ts";

/** Symlinks followed before a path counts as a loop. */
const MAX_HOPS = 40;

/** Where a path leads: a real path inside the root, or out of it. */
export type Within =
  | { inside: true; path: string }
  | { inside: false; link: string; target: string };

/**
 * Resolves `relative` below `root` (an absolute folder, taken as it is),
 * following the symlinks on the way for as long as they lead inside
 * `root` (spelled as given, or as its real path `realRoot`). A missing
 * step ends the walk: the rest is spelled out as given. Requires
 * `--allow-read`.
 *
 * @returns The real path inside `root`, or the first link that leads out
 * and its target.
 */
export function pathWithin(
  root: string,
  realRoot: string,
  relative: string,
  style: PathStyle = NATIVE,
): Within {
  const split = (text: string) =>
    text.split(style.windows ? /[\\/]+/ : /\/+/).filter((s) => s !== "");
  const queue = split(relative);
  let current = root;
  let hops = 0;
  // The last link followed, for the message when a `..` then climbs out.
  let followed = { link: relative, target: relative };
  while (queue.length > 0) {
    const step = queue.shift() as string;
    if (step === ".") continue;
    if (step === "..") {
      // `current` holds no link: its parent is the kernel's `..`.
      current = dirname(current, style);
      if (stepsBelow(root, current, style) === null) {
        return { inside: false, ...followed };
      }
      continue;
    }
    const next = joinPath(style, current, step);
    let info: Deno.FileInfo;
    try {
      info = Deno.lstatSync(next);
    } catch {
      return { inside: true, path: joinPath(style, next, ...queue) };
    }
    if (!info.isSymlink) {
      current = next;
      continue;
    }
    const target = Deno.readLinkSync(next);
    followed = { link: next, target };
    if (++hops > MAX_HOPS) return { inside: false, link: next, target };
    if (!isAbsolute(target, style) && !/^[A-Za-z]:/.test(target)) {
      queue.unshift(...split(target));
      continue;
    }
    // An absolute target, judged on its text; one that climbs with `..`
    // cannot be judged so, and counts as leading out.
    const below = split(target).includes("..")
      ? null
      : stepsBelow(root, normalize(target, style), style) ??
        stepsBelow(realRoot, normalize(target, style), style);
    if (below === null) return { inside: false, link: next, target };
    current = root;
    queue.unshift(...below);
  }
  return { inside: true, path: current };
}
