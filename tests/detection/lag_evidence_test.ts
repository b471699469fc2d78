/**
 * When the lag wait can change a verdict: only where the payload cannot
 * tell a reply without text from one still on its way to the file.
 */

import assert from "node:assert/strict";
import type { Entry } from "../../src/transcript/entry.ts";
import { mayLag } from "../../src/detection/_lag_evidence.ts";

const entry = (version?: string): Entry => ({
  kind: "results",
  offset: 0,
  line: 0,
  promptId: null,
  sidechain: false,
  results: [],
  ...(version === undefined ? {} : { version }),
});
const silent = { lastAssistantMessage: null, payloadSendsLastMessage: false };

Deno.test("mayLag() is false once last_assistant_message could have been sent", () => {
  assert.equal(
    mayLag({ ...silent, lastAssistantMessage: "Done." }, [entry()]),
    false,
  );
  assert.equal(
    mayLag({ ...silent, payloadSendsLastMessage: true }, [entry()]),
    false,
  );
  for (const version of ["2.1.47", "2.1.332", "2.2.0", "3.0.0-beta"]) {
    assert.equal(mayLag(silent, [entry(version)]), false, version);
  }
});

Deno.test("mayLag() is true for older versions and when nothing shows one", () => {
  for (const version of ["2.1.46", "2.0.76", "1.0.98"]) {
    assert.equal(mayLag(silent, [entry(version)]), true, version);
  }
  assert.equal(mayLag(silent, []), true);
  assert.equal(mayLag(silent, [entry(), entry("unknown")]), true);
  // The newest entry that names a version decides (a resumed session).
  assert.equal(mayLag(silent, [entry("2.0.76"), entry("2.1.332")]), false);
  assert.equal(mayLag(silent, [entry("2.1.332"), entry("2.0.76")]), true);
});
