/**
 * Imports a module off the start-up graph: `deno run` pre-loads every literal
 * `import("./x.ts")` (about 5 ms), not a computed one. For the CLI.
 *
 * @module
 */

/** `importLazily<typeof import("./x.ts")>("./x.ts", import.meta.url)`. */
export function importLazily<T>(specifier: string, base: string): Promise<T> {
  return import(new URL(specifier, base).href);
}
