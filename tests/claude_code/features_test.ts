/**
 * Each release of the run against the gates stall-watch keeps for it: every
 * client behaviour in `src/claude_client/release.ts` is probed in the
 * real client (the probe that found its floor by bisecting npm releases),
 * and the release must behave as the gate says. So a wrong floor, or a
 * release that changed, fails here, and the compatibility table in the
 * docs (generated from the same floors, checked by
 * `tests/claude_client/compat_table_test.ts`) cannot claim what a release does not
 * do.
 */

import assert from "node:assert/strict";
import { FEATURE_FLOORS } from "../../src/claude_client/release.ts";
import { PROBES } from "./support/probes.ts";
import { has } from "./support/release_facts.ts";
import { claudeTest } from "./support/scenario.ts";

Deno.test("every client feature has a probe, and every probe a feature", () => {
  assert.deepEqual(
    PROBES.map((p) => p.name).sort(),
    FEATURE_FLOORS.map((f) => f.feature).sort(),
  );
});

for (const probe of PROBES) {
  claudeTest(
    `client feature ${probe.name} (${probe.question}): as its gate says`,
    async (client) => {
      const result = await probe.run(client.path);
      assert.equal(
        result.has,
        has(client.release, probe.name),
        `${client.release} ${
          result.has ? "has" : "lacks"
        } ${probe.name}: ${result.saw}`,
      );
    },
    probe.tmux ? { tmux: true } : {},
  );
}
