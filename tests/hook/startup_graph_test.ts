/**
 * Guards the hook's start-up cost. The hook runs at every stop, so what
 * `main.ts` loads before it can decide must stay small: no `node:` module
 * (each starts Deno's Node compatibility layer, about 25 ms of CPU; use
 * `src/shared/paths.ts`) and no npm package (load those with `import()` in the
 * command or branch that needs them).
 */

import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";

interface Dependency {
  code?: { specifier: string };
  isDynamic?: boolean;
}

interface InfoModule {
  specifier: string;
  dependencies?: Dependency[];
}

Deno.test("main.ts statically loads no node: modules and no npm packages", async () => {
  const main = fileURLToPath(new URL("../../main.ts", import.meta.url));
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json", main],
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.ok(output.success, new TextDecoder().decode(output.stderr));
  const info: { roots: string[]; modules: InfoModule[] } = JSON.parse(
    new TextDecoder().decode(output.stdout),
  );
  const bySpecifier = new Map(info.modules.map((m) => [m.specifier, m]));
  const seen = new Set<string>();
  const heavy: string[] = [];
  const visit = (specifier: string, from: string) => {
    if (seen.has(specifier)) return;
    seen.add(specifier);
    if (specifier.startsWith("node:") || specifier.startsWith("npm:")) {
      heavy.push(
        `${specifier} (imported by ${from.replace(/^.*\/(src|main)/, "$1")})`,
      );
      return;
    }
    for (const dependency of bySpecifier.get(specifier)?.dependencies ?? []) {
      if (dependency.code && !dependency.isDynamic) {
        visit(dependency.code.specifier, specifier);
      }
    }
  };
  for (const root of info.roots) visit(root, "root");
  assert.deepEqual(
    heavy,
    [],
    "the hook's static import graph must stay free of node: and npm: modules",
  );
  assert.ok(seen.size > 10, "the graph was walked");
});
