/**
 * Guards the layout of `src/`: one folder per subsystem, stacked in
 * data-flow order, so the listing tells a newcomer where a byte of
 * transcript becomes a verdict. A folder may import only folders on floors
 * below it in {@link FLOORS} (and itself), never a sibling on its own
 * floor; `cli.ts` sits on top.
 */

import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";

/**
 * Bottom to top, a floor's folders side by side: the Stop hook and the
 * watchdog are two doors onto one decision, and share nothing but what
 * lies below them. docs/development.md's code map lists them the same
 * way (a test below holds it to this list).
 */
const FLOORS: readonly (readonly string[])[] = [
  ["shared"],
  ["claude_client"],
  ["confined"],
  ["transcript"],
  ["codex"],
  ["detection"],
  ["recovery"],
  ["config"],
  ["guardrails"],
  ["events"],
  ["decision"],
  ["hook", "watchdog"],
  ["client_settings"],
  ["install"],
  ["doctor"],
  ["audit"],
  ["commands"],
];

/** Every folder, bottom to top. */
const FOLDERS: readonly string[] = FLOORS.flat();

const MAX_MODULES_PER_FOLDER = 16;
const MAX_LOOSE_MODULES = 2;

const SRC = fileURLToPath(new URL("../src/", import.meta.url));

function modulesOf(folder: string): string[] {
  return [...Deno.readDirSync(SRC + folder)]
    .filter((e) => e.isFile && e.name.endsWith(".ts"))
    .map((e) => e.name)
    .sort();
}

/** Every relative specifier a module names: static imports, `import()` and lazy imports. */
function relativeSpecifiers(text: string): string[] {
  const found: string[] = [];
  for (const m of text.matchAll(/["'](\.\.?\/[^"'\n]+\.ts)["']/g)) {
    found.push(m[1] as string);
  }
  return found;
}

/** Every module of `src/`, relative to it: loose modules and each folder's. */
function allModules(): string[] {
  return [
    ...[...Deno.readDirSync(SRC)].filter((e) => e.isFile).map((e) => e.name),
    ...FOLDERS.flatMap((f) => modulesOf(f).map((m) => `${f}/${m}`)),
  ].filter((f) => f.endsWith(".ts"));
}

/** The `src/` modules `file` names, relative to `src/`. */
function importsOf(file: string): string[] {
  const text = Deno.readTextFileSync(SRC + file);
  const targets: string[] = [];
  for (const specifier of relativeSpecifiers(text)) {
    const target = new URL(specifier, new URL(file, "file:///src/"));
    if (target.pathname.startsWith("/src/")) {
      targets.push(target.pathname.slice("/src/".length));
    }
  }
  return targets;
}

/**
 * The import cycles among `modules`, each as the files around it: a
 * depth-first search that reports a cycle when it meets a module still on
 * its path.
 */
export function importCycles(
  modules: readonly string[],
  importsOf: (module: string) => readonly string[],
): string[][] {
  const cycles: string[][] = [];
  const done = new Set<string>();
  const path: string[] = [];
  const onPath = new Set<string>();
  const visit = (module: string) => {
    if (onPath.has(module)) {
      cycles.push([...path.slice(path.indexOf(module)), module]);
      return;
    }
    if (done.has(module)) return;
    path.push(module);
    onPath.add(module);
    for (const target of importsOf(module)) visit(target);
    onPath.delete(module);
    path.pop();
    done.add(module);
  };
  for (const module of modules) visit(module);
  return cycles;
}

/** The `src/` folder a path inside `src/` belongs to ("" = top level). */
function folderOf(relativeToSrc: string): string {
  const slash = relativeToSrc.indexOf("/");
  return slash === -1 ? "" : relativeToSrc.slice(0, slash);
}

Deno.test("src/ holds only the subsystem folders and at most two loose modules", () => {
  const folders: string[] = [];
  const loose: string[] = [];
  for (const entry of Deno.readDirSync(SRC)) {
    if (entry.isDirectory) folders.push(entry.name);
    else if (entry.name.endsWith(".ts")) loose.push(entry.name);
  }
  assert.deepEqual(folders.sort(), [...FOLDERS].sort());
  assert.ok(loose.length <= MAX_LOOSE_MODULES, `loose: ${loose.join(", ")}`);
  for (const folder of FOLDERS) {
    const count = modulesOf(folder).length;
    assert.ok(count > 0, `${folder} is empty`);
    assert.ok(
      count <= MAX_MODULES_PER_FOLDER,
      `${folder} holds ${count} modules`,
    );
  }
});

Deno.test("docs/development.md's code map lists the floors as they are", () => {
  const text = Deno.readTextFileSync(
    new URL("../docs/development.md", import.meta.url),
  );
  const map = text.slice(
    text.indexOf("## The code map"),
    text.indexOf("### A Stop payload"),
  );
  const rows = map.split("\n").filter((line) => line.startsWith("| `src/"))
    .map((line) =>
      [...(line.split("|")[1] ?? "").matchAll(/`src\/(\w+)\/`/g)].map((m) =>
        m[1]!
      )
    );
  assert.deepEqual(rows, FLOORS.map((floor) => [...floor]));
});

Deno.test("no src/ folder imports a folder above it in the data flow, or beside it", () => {
  const floor = new Map<string, number>(
    FLOORS.flatMap((folders, i) => folders.map((f) => [f, i])),
  );
  floor.set("", FLOORS.length); // cli.ts and friends: the top
  const wrong: string[] = [];
  for (const file of allModules()) {
    const from = folderOf(file);
    for (const target of importsOf(file)) {
      const to = folderOf(target);
      if (to === from) continue;
      if ((floor.get(to) ?? -1) >= (floor.get(from) ?? -1)) {
        wrong.push(`${file} -> ${target}`);
      }
    }
  }
  assert.deepEqual(wrong, []);
});

Deno.test("no src/ module imports itself through other modules (no file-level cycle)", () => {
  // The folder rule lets a cycle inside one folder through.
  const modules = allModules();
  const known = new Set(modules);
  // Only real modules: a doc comment may quote a made-up `./x.ts`.
  const cycles = importCycles(
    modules,
    (m) => importsOf(m).filter((t) => known.has(t)),
  );
  assert.deepEqual(cycles.map((c) => c.join(" -> ")), []);
});

Deno.test("a module only its own folder imports is named _x.ts, and only its folder imports one", () => {
  // The std convention (`fs/_is_subdir.ts`): a folder's internals are
  // marked, so its face is what is left. Commands are each loaded by name
  // (`commands/registry.ts`), so every one of them is a face.
  const importers = new Map<string, Set<string>>();
  for (const file of [...allModules(), "../main.ts"]) {
    for (const target of importsOf(file)) {
      if (!importers.has(target)) importers.set(target, new Set());
      importers.get(target)!.add(file);
    }
  }
  const wrong: string[] = [];
  for (const file of allModules()) {
    const folder = folderOf(file);
    if (folder === "" || folder === "commands") continue;
    const by = [...(importers.get(file) ?? [])];
    const outside = by.filter((b) => folderOf(b) !== folder);
    const internal = file.slice(folder.length + 1).startsWith("_");
    if (internal && outside.length > 0) {
      wrong.push(`${file} is imported by ${outside.join(", ")}`);
    }
    if (!internal && by.length > 0 && outside.length === 0) {
      wrong.push(`${file} is imported only inside ${folder}/`);
    }
  }
  assert.deepEqual(wrong, []);
});

Deno.test("no src/ module imports a node: module (paths: shared/paths.ts)", () => {
  // Each starts Deno's Node layer, about 25 ms of CPU: the hook pays it at
  // every stop, the watchdog after every tool call.
  const found = allModules().filter((file) =>
    /^\s*(?:import|export)\b[^;]*?["']node:/m.test(
      Deno.readTextFileSync(SRC + file),
    )
  );
  assert.deepEqual(found, []);
});

Deno.test("importCycles() finds a cycle inside one folder and none in a chain", () => {
  const graph: Record<string, string[]> = {
    "install/a.ts": ["install/b.ts"],
    "install/b.ts": ["install/a.ts", "shared/c.ts"],
    "shared/c.ts": [],
  };
  const of = (m: string) => graph[m] ?? [];
  assert.deepEqual(importCycles(Object.keys(graph), of), [
    ["install/a.ts", "install/b.ts", "install/a.ts"],
  ]);
  delete graph["install/b.ts"];
  graph["install/b.ts"] = ["shared/c.ts"];
  assert.deepEqual(importCycles(Object.keys(graph), of), []);
});
