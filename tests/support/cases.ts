/**
 * The fixture manifest (`fixtures/cases.json`) and payload builder shared by
 * the in-process and end-to-end fixture tests.
 *
 * @module
 */

import { resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** Absolute path of the `fixtures/` folder. */
export const FIXTURES_DIR: string = resolve(
  fileURLToPath(new URL("../../fixtures/", import.meta.url)),
);

/** One expected signature, as `scan --json` prints it. */
export interface ExpectedSignature {
  kind: string;
  tool_name: string;
  tool_use_id: string;
  line: number;
}

/** One manifest row. */
export interface FixtureCase {
  fixture: string;
  shows: string;
  payload: Record<string, unknown> & { agent_transcript_is_fixture?: boolean };
  expect: { verdict: "allow" | "block"; signatures: ExpectedSignature[] };
}

/** Every case in the manifest. */
export function loadCases(): FixtureCase[] {
  return JSON.parse(Deno.readTextFileSync(resolve(FIXTURES_DIR, "cases.json")));
}

/** A name for a case: fixture plus the payload fields that make it special. */
export function caseName(c: FixtureCase): string {
  const extras = Object.keys(c.payload).filter((k) => k !== "hook_event_name");
  return `${c.fixture}${
    extras.length ? ` [${extras.join(", ")}]` : ""
  } -> ${c.expect.verdict}`;
}

/** The hook payload for a case, pointing at the fixture by absolute path. */
export function payloadFor(
  c: FixtureCase,
  sessionId: string,
  cwd: string,
): Record<string, unknown> {
  const { agent_transcript_is_fixture: isAgent, ...extra } = c.payload;
  const fixturePath = resolve(FIXTURES_DIR, c.fixture);
  const payload: Record<string, unknown> = {
    session_id: sessionId,
    transcript_path: isAgent
      ? resolve(FIXTURES_DIR, "healthy_no_tools.jsonl")
      : fixturePath,
    cwd,
    hook_event_name: "Stop",
    stop_hook_active: false,
    ...extra,
  };
  if (isAgent) {
    payload.agent_transcript_path = fixturePath;
    payload.agent_id = "fixture";
    payload.agent_type = "general-purpose";
  }
  return payload;
}
