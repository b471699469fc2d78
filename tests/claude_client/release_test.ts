import assert from "node:assert/strict";
import {
  compareRelease,
  FEATURE_FLOORS,
  featureSince,
  formatRelease,
  parseRelease,
  type Release,
  releaseOf,
  supports,
} from "../../src/claude_client/release.ts";
import { toEntry } from "../../src/transcript/line_entries.ts";
import { parseJsonObjects } from "../../src/transcript/json_line.ts";

Deno.test("parseRelease() reads x.y.z, with or without a suffix, and nothing else", () => {
  assert.deepEqual(parseRelease("2.1.47"), [2, 1, 47]);
  assert.deepEqual(parseRelease("2.1.332-beta.1"), [2, 1, 332]);
  assert.deepEqual(parseRelease("10.0.3"), [10, 0, 3]);
  for (const bad of ["", "2.1", "v2.1.47", "x.y.z", "2.1.a"]) {
    assert.equal(parseRelease(bad), null, bad);
  }
  assert.equal(formatRelease([2, 1, 84]), "2.1.84");
});

Deno.test("compareRelease() orders by major, minor, then patch as numbers", () => {
  const sorted = ["2.1.9", "2.0.76", "2.1.100", "2.1.47", "1.0.38"]
    .map((v) => parseRelease(v) as Release)
    .sort(compareRelease)
    .map(formatRelease);
  assert.deepEqual(sorted, ["1.0.38", "2.0.76", "2.1.9", "2.1.47", "2.1.100"]);
});

/** The lines of a file under `fixtures/real/`, as entries. */
function realEntries(name: string) {
  const text = Deno.readTextFileSync(
    new URL(`../../fixtures/real/${name}`, import.meta.url),
  );
  return text.split("\n").flatMap((line, i) =>
    parseJsonObjects(line).map((raw) => toEntry(raw, { offset: i, line: i }))
  ).filter((e) => e !== null);
}

Deno.test("releaseOf() reads the release from the transcript's own version field", () => {
  assert.deepEqual(
    releaseOf(realEntries("real_lost_tool_call_2.0.76.jsonl")),
    [2, 0, 76],
  );
  assert.deepEqual(
    releaseOf(realEntries("real_api_error_after_tool_result.jsonl")),
    [2, 1, 332],
  );
  // The newest entry that names one wins; entries without are skipped.
  const [first, second] = realEntries("real_lost_tool_call_2.0.76.jsonl");
  const older = { ...first!, version: "2.0.70" };
  const unnamed = { ...second! };
  delete unnamed.version;
  assert.deepEqual(releaseOf([older, unnamed]), [2, 0, 70]);
  assert.equal(releaseOf([unnamed]), null);
  assert.equal(releaseOf([{ ...unnamed, version: "nightly" }]), null);
  assert.equal(releaseOf([]), null);
});

Deno.test("supports() answers by each feature's floor, and null for an unknown release", () => {
  for (const { feature, since } of FEATURE_FLOORS) {
    const floor = parseRelease(since) as Release;
    assert.deepEqual(featureSince(feature), floor);
    assert.equal(supports(floor, feature), true, `${feature} at ${since}`);
    assert.equal(supports([floor[0], floor[1], floor[2] + 7], feature), true);
    assert.equal(supports([floor[0], floor[1] + 1, 0], feature), true);
    const before: Release = floor[2] > 0
      ? [floor[0], floor[1], floor[2] - 1]
      : [floor[0], floor[1] - 1, 999];
    assert.equal(supports(before, feature), false, `${feature} before`);
    assert.equal(supports(null, feature), null);
  }
});

Deno.test("FEATURE_FLOORS lists each feature once, oldest floor first", () => {
  const features = FEATURE_FLOORS.map((f) => f.feature);
  assert.equal(new Set(features).size, features.length);
  const floors = FEATURE_FLOORS.map((f) => parseRelease(f.since) as Release);
  assert.deepEqual([...floors].sort(compareRelease), floors);
  for (const floor of FEATURE_FLOORS) assert.ok(floor.what.length > 10);
});
