/**
 * The module graph `deno info --json` reports for an entry module: what
 * `deno run` (and `deno compile`) load for it. Specifiers computed at run
 * time (`src/shared/lazy_import.ts`) are invisible to it, as to Deno.
 *
 * @module
 */

interface Dependency {
  code?: { specifier: string };
  isDynamic?: boolean;
}

interface InfoModule {
  specifier: string;
  dependencies?: Dependency[];
}

/** Each module reached, with the module that first imported it. */
export type ModuleGraph = Map<string, string>;

/**
 * The modules reached from `entry` (an absolute path or URL): through static
 * imports, and through literal `import()`s too when `dynamic` is set.
 * Requires `--allow-run` (it runs `deno info`).
 */
export async function moduleGraph(
  entry: string,
  options: { dynamic: boolean },
): Promise<ModuleGraph> {
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json", entry],
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!output.success) {
    throw new Error(new TextDecoder().decode(output.stderr));
  }
  const info: { roots: string[]; modules: InfoModule[] } = JSON.parse(
    new TextDecoder().decode(output.stdout),
  );
  const bySpecifier = new Map(info.modules.map((m) => [m.specifier, m]));
  const reached: ModuleGraph = new Map();
  const visit = (specifier: string, from: string) => {
    if (reached.has(specifier)) return;
    reached.set(specifier, from);
    for (const dependency of bySpecifier.get(specifier)?.dependencies ?? []) {
      if (dependency.code && (options.dynamic || !dependency.isDynamic)) {
        visit(dependency.code.specifier, specifier);
      }
    }
  };
  for (const root of info.roots) visit(root, "root");
  return reached;
}

/** `file:` URLs as paths relative to `root` (a file URL ending in `/`). */
export function relativeTo(
  root: string,
  specifiers: Iterable<string>,
): string[] {
  return [...specifiers].map((s) =>
    s.startsWith(root) ? s.slice(root.length) : s
  );
}
