/**
 * Every bundled fixture through the detector, in process: the verdict and
 * each signature's kind, tool, id and 1-based line must match the manifest.
 */

import assert from "node:assert/strict";
import { signatureData } from "../../src/detection/classify.ts";
import { detectStalls } from "../../src/detection/detect.ts";
import { readStopPayload } from "../../src/hook/_hook_input.ts";
import { caseName, loadCases, payloadFor } from "../support/cases.ts";

const noSleep = () => Promise.resolve();

for (const fixtureCase of loadCases()) {
  Deno.test(`detectStalls() on ${caseName(fixtureCase)}`, async () => {
    const input = readStopPayload(
      JSON.stringify(payloadFor(fixtureCase, "fixture", "/tmp")),
    ).input();
    if (input.stopHookActive) return; // the hook short-circuits; see hook tests
    const detection = await detectStalls(input, {
      lagWaitMs: 0,
      sleep: noSleep,
    });
    const verdict = detection.signatures.length > 0 ? "block" : "allow";
    assert.equal(
      verdict,
      fixtureCase.expect.verdict,
      `${fixtureCase.shows}\nreason: ${detection.reason}`,
    );
    assert.deepEqual(
      detection.signatures.map(signatureData),
      fixtureCase.expect.signatures,
    );
  });
}

Deno.test("fixture manifest covers at least 25 fixtures and both verdicts", () => {
  const cases = loadCases();
  assert.ok(new Set(cases.map((c) => c.fixture)).size >= 25);
  assert.ok(cases.some((c) => c.expect.verdict === "block"));
  assert.ok(cases.some((c) => c.expect.verdict === "allow"));
});
