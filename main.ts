/**
 * stall-watch: a Claude Code Stop hook that notices when a session went
 * silent on a tool call and nudges it back to work.
 *
 * With no arguments it reads the hook payload on stdin and exits 0 (allow)
 * or 2 (block, recovery prompt on stderr). See `stall-watch --help`.
 *
 * @module
 */

if (import.meta.main) {
  Deno.exit(await run(Deno.args));
}

/**
 * A stop (no arguments) runs the hook from its bundle, one generated module
 * (see `src/hook/stop_hook.ts`); a command, or a person at a terminal, goes
 * through the CLI, loaded from source.
 */
async function run(args: readonly string[]): Promise<number> {
  if (args.length === 0) {
    // Imported, not a static dependency: loaded on the way through the event
    // loop, the bundle gets its V8 code cache written before `Deno.exit`
    // (evaluated straight into it, a module graph never gets one).
    const { runStopHook } = await import(
      "./gen/stop_hook.js"
    ) as typeof import("./src/hook/stop_hook.ts");
    const code = await runStopHook();
    if (code !== null) return code;
  }
  // Computed specifiers keep the CLI out of the hook's start-up graph (see
  // `src/shared/lazy_import.ts`, not imported here for the same reason).
  const [{ main }, { realIO }] = await Promise.all([
    import(new URL("./src/cli.ts", import.meta.url).href) as Promise<
      typeof import("./src/cli.ts")
    >,
    import(new URL("./src/shared/real_io.ts", import.meta.url).href) as Promise<
      typeof import("./src/shared/real_io.ts")
    >,
  ]);
  return await main(args, realIO());
}
