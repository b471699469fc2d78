/**
 * Imports one of stall-watch's modules when first needed, out of the
 * start-up graph: `deno run` pre-loads every literal `import("./x.ts")`
 * (about 5 ms for command code a run never reaches), not a computed one
 * (`deno compile` needs `--include` for them). For the CLI and its
 * commands; the Stop hook's bundle keeps plain `import()`s lazy itself.
 *
 * @module
 */

/**
 * Imports `specifier` relative to `base` (`import.meta.url`):
 * `importLazily<typeof import("./x.ts")>("./x.ts", import.meta.url)`.
 */
export function importLazily<T>(specifier: string, base: string): Promise<T> {
  return import(new URL(specifier, base).href);
}
