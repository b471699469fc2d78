/**
 * Where a test cannot run, and why. A test that cannot run on Windows, or
 * only under Wine (the Windows lane, docs/development.md), is registered
 * ignored with the reason in its name there, so every skip shows in the
 * run's output as `<name> [skipped on Windows: <why>] ... ignored`, never
 * silently:
 *
 *   Deno.test({ ...skipWhere("name", PLANTS_POSIX_LINKS), async fn() {} });
 *
 * @module
 */

/** Running on Windows (or Windows Deno under Wine). */
export const ON_WINDOWS: boolean = Deno.build.os === "windows";

/**
 * Windows Deno under Wine: Wine puts `WINELOADER` in the environment of
 * every program it runs. Without `--allow-env` a run cannot tell, and
 * counts as real Windows.
 */
export const UNDER_WINE: boolean = ON_WINDOWS &&
  Deno.permissions.querySync({ name: "env", variable: "WINELOADER" })
      .state === "granted" &&
  Deno.env.get("WINELOADER") !== undefined;

/** A place a test cannot run, and why. */
export interface Skip {
  /** Whether the test runs there now. */
  applies: boolean;
  /** "on Windows", "under Wine". */
  where: string;
  /** Why, in a few words. */
  why: string;
}

/** A test that cannot run on Windows (real or Wine). */
export function onWindows(why: string): Skip {
  return { applies: ON_WINDOWS, where: "on Windows", why };
}

/** A test of something only Windows has (junctions, say). */
export function offWindows(why: string): Skip {
  return { applies: !ON_WINDOWS, where: "off Windows", why };
}

/** A test that needs Linux itself (its `/proc`, say). */
export function offLinux(why: string): Skip {
  return { applies: Deno.build.os !== "linux", where: "off Linux", why };
}

/** A test that needs something this machine may lack (a tool, root). */
export function missing(applies: boolean, why: string): Skip {
  return { applies, where: "here", why };
}

/** A test that runs on Windows but not under Wine. */
export function underWine(why: string): Skip {
  return { applies: UNDER_WINE, where: "under Wine", why };
}

/**
 * `name` and `ignore` for `Deno.test`: ignored where one of `skips`
 * applies, and then named with the first one's place and reason.
 */
export function skipWhere(
  name: string,
  ...skips: Skip[]
): { name: string; ignore: boolean } {
  const skip = skips.find((s) => s.applies);
  return skip
    ? { name: `${name} [skipped ${skip.where}: ${skip.why}]`, ignore: true }
    : { name, ignore: false };
}

/** Plants symlinks or FIFOs, which a Windows test run cannot. */
export const PLANTS_POSIX_LINKS: Skip = onWindows(
  "plants symlinks or FIFOs (no FIFOs on Windows; symlinks need admin " +
    "rights or Developer Mode, and Wine creates none)",
);

/** Kills processes with SIGKILL. */
export const SENDS_SIGKILL: Skip = onWindows(
  "kills hooks with SIGKILL, which Windows does not have",
);

/** Runs POSIX `sh` scripts. */
export const RUNS_SH_SCRIPTS: Skip = onWindows(
  "runs POSIX sh scripts (Claude Code runs the plugin's in Git Bash there)",
);

/** Depends on POSIX file modes. */
export const USES_FILE_MODES: Skip = onWindows(
  "depends on POSIX file modes, which Windows does not have",
);

/** Uses the hostile-clone harness (`hostile_clone.ts`, `hostile_attack.ts`). */
export const HOSTILE_CLONES: Skip = onWindows(
  "the hostile-clone harness is POSIX-only: it commits symlinks and FIFOs " +
    "with git and snapshots POSIX trees",
);

/**
 * Appends from several processes at once: each is atomic on NTFS and
 * POSIX, not under Wine.
 */
export const APPENDS_FROM_PROCESSES: Skip = underWine(
  "Wine's appends are not atomic across processes (lines from 8 writers " +
    "tore; NTFS appends do not)",
);

/**
 * Creates a symlink at `path` when this platform can: `true` when one is
 * there now. Under Wine `Deno.symlink` succeeds and creates nothing.
 */
export async function symlinkIfPossible(
  target: string,
  path: string,
  type: "file" | "dir" = "file",
): Promise<boolean> {
  try {
    await Deno.symlink(target, path, { type });
    return (await Deno.lstat(path)).isSymlink;
  } catch {
    return false;
  }
}
