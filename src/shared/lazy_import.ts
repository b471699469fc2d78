/**
 * Imports one of stall-watch's own modules when it is first needed, without
 * putting it in the start-up module graph.
 *
 * Why not a plain `import("./x.ts")`: `deno run` loads and analyses every
 * literally named dynamic import before the program starts, which cost the
 * hook about 5 ms at every stop for command code it never runs. A computed
 * specifier is left alone until it is imported. `deno compile` cannot see
 * such imports either, so the compile script embeds every module under
 * `src/` with `--include`.
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
