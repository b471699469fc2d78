/**
 * stall-watch: a Claude Code Stop hook (and OpenAI Codex CLI's, as
 * `stall-watch codex-stop`) that notices when a session went silent on a
 * tool call and nudges it back to work.
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
 * A stop (no arguments; `codex-stop` alone for OpenAI's Codex CLI) runs the
 * hook from its bundle, one generated module (see `src/hook/stop_hook.ts`);
 * a command, or a person at a terminal, goes through the CLI, loaded from
 * source.
 */
async function run(args: readonly string[]): Promise<number> {
  const codex = args.length === 1 && args[0] === "codex-stop";
  if (args.length === 0 || codex) {
    // Imported, not a static dependency: loaded on the way through the event
    // loop, the bundle gets its V8 code cache written before `Deno.exit`
    // (evaluated straight into it, a module graph never gets one).
    const { runStopHook, runCodexStopHook } = await import(
      "./gen/stop_hook.js"
    ) as typeof import("./src/hook/stop_hook.ts");
    const code = await (codex ? runCodexStopHook() : runStopHook());
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
