/**
 * Imports one of stall-watch's own modules when it is first needed, without
 * putting it in the start-up module graph.
 *
 * Why not a plain `import("./x.ts")`: `deno run` loads and analyses every
 * literally named dynamic import before the program starts, which cost
 * about 5 ms for command code a run never reaches. A computed specifier is
 * left alone until it is imported. `deno compile` cannot see such imports
 * either, so the compile script embeds every module under `src/` with
 * `--include`.
 *
 * Used for the CLI's subcommands and for the CLI itself. The Stop hook's own
 * lazy parts are plain `import()`s instead: the hook runs from a bundle
 * (`hook/stop_hook.ts`), which can only hold modules it can see, and keeps
 * them lazy there; a computed specifier inside the bundle would load a
 * second copy of a source module. Each of those says when it loads, in a
 * comment right above it: `// Loaded lazily: only on a stall ...`
 * (`tests/hook/startup_graph_test.ts` holds every one to it).
 *
 * @module
 */

/**
 * Imports `specifier` relative to `base` (pass `import.meta.url`). Give the
 * module's type as `T`: `importLazily<typeof import("./x.ts")>("./x.ts", import.meta.url)`.
 */
export function importLazily<T>(specifier: string, base: string): Promise<T> {
  return import(new URL(specifier, base).href);
}
