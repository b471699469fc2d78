/**
 * Guards the layout of `src/`: one folder per subsystem, stacked in
 * data-flow order, so the listing tells a newcomer where a byte of
 * transcript becomes a verdict. A folder may import only folders below it
 * in {@link FLOORS} (and itself); `cli.ts` sits on top.
 */

import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";

/** Bottom to top. Keep in step with "How the code is organised" in docs/development.md. */
const FLOORS = [
  "shared",
  "confined",
  "transcript",
  "detection",
  "recovery",
  "settings",
  "guardrails",
  "events",
  "hook",
  "watchdog",
  "install",
  "audit",
  "commands",
] as const;

const MAX_MODULES_PER_FOLDER = 15;
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
  assert.deepEqual(folders.sort(), [...FLOORS].sort());
  assert.ok(loose.length <= MAX_LOOSE_MODULES, `loose: ${loose.join(", ")}`);
  for (const folder of FLOORS) {
    const count = modulesOf(folder).length;
    assert.ok(count > 0, `${folder} is empty`);
    assert.ok(
      count <= MAX_MODULES_PER_FOLDER,
      `${folder} holds ${count} modules`,
    );
  }
});

Deno.test("no src/ folder imports a folder above it in the data flow", () => {
  const rank = new Map<string, number>(FLOORS.map((f, i) => [f, i]));
  rank.set("", FLOORS.length); // cli.ts and friends: the top
  const upward: string[] = [];
  const files = [
    ...[...Deno.readDirSync(SRC)].filter((e) => e.isFile).map((e) => e.name),
    ...FLOORS.flatMap((f) => modulesOf(f).map((m) => `${f}/${m}`)),
  ].filter((f) => f.endsWith(".ts"));
  for (const file of files) {
    const from = folderOf(file);
    const text = Deno.readTextFileSync(SRC + file);
    for (const specifier of relativeSpecifiers(text)) {
      const target = new URL(specifier, new URL(file, "file:///src/"));
      if (!target.pathname.startsWith("/src/")) continue;
      const to = folderOf(target.pathname.slice("/src/".length));
      if ((rank.get(to) ?? -1) > (rank.get(from) ?? -1)) {
        upward.push(`${file} -> ${specifier}`);
      }
    }
  }
  assert.deepEqual(upward, []);
});
