/**
 * Makes a directory read-only for a test, in a way that also binds root
 * (which ignores permission bits): `chmod` first, and when a probe write
 * still succeeds, a read-only bind mount.
 *
 * @module
 */

/**
 * Makes `dir` read-only until disposal (`await using readOnly = await
 * makeReadOnly(dir)`); `null` where this is impossible.
 */
export async function makeReadOnly(
  dir: string,
): Promise<AsyncDisposable | null> {
  if (Deno.build.os === "windows") return null;
  await Deno.chmod(dir, 0o555);
  if (!(await canWrite(dir))) return undo(() => Deno.chmod(dir, 0o755));
  await Deno.chmod(dir, 0o755); // root ignores mode bits: try a mount
  if (!(await run("mount", ["--bind", "-o", "ro", dir, dir]))) return null;
  // Some mount versions ignore "ro" on the first bind; make sure.
  await run("mount", ["-o", "remount,ro,bind", dir]);
  if (await canWrite(dir)) {
    await run("umount", [dir]);
    return null;
  }
  return undo(async () => void await run("umount", [dir]));
}

function undo(fn: () => Promise<void>): AsyncDisposable {
  return { [Symbol.asyncDispose]: fn };
}

async function canWrite(dir: string): Promise<boolean> {
  try {
    await Deno.writeTextFile(`${dir}/.probe`, "x");
    await Deno.remove(`${dir}/.probe`);
    return true;
  } catch {
    return false;
  }
}

/** Runs a program quietly; true when it exits 0, false when it fails or is missing. */
export async function run(program: string, args: string[]): Promise<boolean> {
  try {
    const { success } = await new Deno.Command(program, {
      args,
      stdout: "null",
      stderr: "null",
    }).output();
    return success;
  } catch {
    return false;
  }
}
