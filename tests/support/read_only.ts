/**
 * Makes a directory read-only for a test, in a way that also binds root
 * (which ignores permission bits): a read-only bind mount when running as
 * root, `chmod` otherwise.
 *
 * @module
 */

/** Makes `dir` read-only; returns the undo, or `null` where this is impossible. */
export async function makeReadOnly(
  dir: string,
): Promise<(() => Promise<void>) | null> {
  if (Deno.build.os === "windows") return null;
  if (Deno.uid() !== 0) {
    await Deno.chmod(dir, 0o555);
    return () => Deno.chmod(dir, 0o755);
  }
  const mounted = await run("mount", ["--bind", "-o", "ro", dir, dir]);
  if (!mounted) return null;
  // Some mount versions ignore "ro" on the first bind; make sure.
  await run("mount", ["-o", "remount,ro,bind", dir]);
  try {
    await Deno.writeTextFile(`${dir}/.probe`, "x");
    await Deno.remove(`${dir}/.probe`);
    await run("umount", [dir]);
    return null;
  } catch {
    return async () => void await run("umount", [dir]);
  }
}

async function run(program: string, args: string[]): Promise<boolean> {
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
