/**
 * Finds the first Claude Code release where a probe's answer changes, by
 * bisecting over the releases npm lists (`npm view @anthropic-ai/claude-code
 * versions`): each release tried is installed into its own cache folder
 * (see `support/claude_install.ts`) and probed with a real session against
 * the fake API (see `support/probes.ts`).
 *
 * Run: `deno task bisect:claude <probe> [--from <release>] [--to <release>]`
 * (default: the matrix's oldest and newest release). Both ends are probed
 * first; the answer must differ between them. One line per release tried,
 * then the first release with the newer answer. Assumes the answer changes
 * once in the range (check neighbours by hand when in doubt: `--from` and
 * `--to` one release apart).
 *
 * @module
 */

import {
  compareReleases,
  findOrInstallClaude,
  MATRIX_RELEASES,
  NEWEST_RELEASE,
} from "./support/claude_install.ts";
import { type Probe, type ProbeResult, PROBES } from "./support/probes.ts";

function usage(): never {
  console.error(
    `usage: bisect.ts <probe> [--from <release>] [--to <release>]\nprobes: ${
      PROBES.map((p) => p.name).join(", ")
    }`,
  );
  Deno.exit(64);
}

const [name, ...rest] = Deno.args;
const probe = PROBES.find((p) => p.name === name);
if (!probe) usage();
let from = MATRIX_RELEASES[0] as string;
let to = NEWEST_RELEASE;
for (let i = 0; i < rest.length; i += 2) {
  const value = rest[i + 1];
  if (value === undefined) usage();
  if (rest[i] === "--from") from = value;
  else if (rest[i] === "--to") to = value;
  else usage();
}

/** Every release npm lists for the package, oldest first, x.y.z only. */
async function npmReleases(): Promise<string[]> {
  const out = await new Deno.Command("npm", {
    args: ["view", "@anthropic-ai/claude-code", "versions", "--json"],
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!out.success) {
    throw new Error(new TextDecoder().decode(out.stderr).trim());
  }
  const list = JSON.parse(new TextDecoder().decode(out.stdout)) as string[];
  return list.filter((v) => /^\d+\.\d+\.\d+$/.test(v)).sort(compareReleases);
}

async function answer(p: Probe, release: string): Promise<ProbeResult> {
  const claude = await findOrInstallClaude(release);
  if (!claude) throw new Error(`cannot install ${release}`);
  const started = performance.now();
  const result = await p.run(claude);
  const seconds = ((performance.now() - started) / 1000).toFixed(0);
  console.log(
    `${release}: ${result.has ? "yes" : "no "} (${result.saw}) [${seconds} s]`,
  );
  return result;
}

const releases = (await npmReleases()).filter((v) =>
  compareReleases(v, from) >= 0 && compareReleases(v, to) <= 0
);
console.log(
  `${probe.name}: ${probe.question}? ${releases.length} releases from ${from} to ${to}`,
);
let low = 0; // index with the old answer
let high = releases.length - 1; // index with the new answer
const oldAnswer = (await answer(probe, releases[low] as string)).has;
const newAnswer = (await answer(probe, releases[high] as string)).has;
if (oldAnswer === newAnswer) {
  console.log(`same answer at both ends (${oldAnswer ? "yes" : "no"})`);
  Deno.exit(1);
}
while (high - low > 1) {
  const mid = Math.floor((low + high) / 2);
  if ((await answer(probe, releases[mid] as string)).has === oldAnswer) {
    low = mid;
  } else high = mid;
}
console.log(
  `${probe.name}: "${newAnswer ? "yes" : "no"}" from ${releases[high]} (${
    releases[low]
  } says "${oldAnswer ? "yes" : "no"}")`,
);
