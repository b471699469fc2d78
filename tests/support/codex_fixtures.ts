/**
 * The real Codex captures of `fixtures/codex/` (written by
 * `deno task fixtures:codex`): each rollout, and the Stop payloads Codex
 * sent while it was written (`<name>.stops.json`).
 *
 * @module
 */

import { fileURLToPath } from "node:url";

/** Where the Codex captures are. */
export const CODEX_FIXTURES_DIR: string = fileURLToPath(
  new URL("../../fixtures/codex/", import.meta.url),
);

/** One Stop run of a capture. */
export interface CapturedStop {
  payload: Record<string, unknown>;
  code: number;
  stderr: string;
}

/** One capture. */
export interface CodexFixture {
  name: string;
  /** The rollout's path (absent for `--ephemeral`, which writes none). */
  path: string;
  bytes: Uint8Array;
  stops: CapturedStop[];
  /** The last Stop payload's `turn_id` (null when no Stop ran). */
  turnId: string | null;
}

/** Every capture with a rollout, in name order. */
export function codexFixtures(): CodexFixture[] {
  return [...Deno.readDirSync(CODEX_FIXTURES_DIR)]
    .filter((e) => e.isFile && e.name.endsWith(".jsonl"))
    .map((e) => codexFixture(e.name))
    .sort((a, b) => a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
}

/** One capture by its file name. */
export function codexFixture(name: string): CodexFixture {
  const path = CODEX_FIXTURES_DIR + name;
  const stops = codexStops(name);
  const turnId = stops.at(-1)?.payload.turn_id;
  return {
    name,
    path,
    bytes: Deno.readFileSync(path),
    stops,
    turnId: typeof turnId === "string" ? turnId : null,
  };
}

/** The Stop runs recorded beside a capture. */
export function codexStops(name: string): CapturedStop[] {
  return JSON.parse(
    Deno.readTextFileSync(
      CODEX_FIXTURES_DIR + name.replace(/\.jsonl$/, ".stops.json"),
    ),
  );
}
