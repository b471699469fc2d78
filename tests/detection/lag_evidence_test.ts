/**
 * behindReason(): what on file shows that a transcript is still behind the
 * Stop that fired for it (the shapes real 2.1.145 left under load), and
 * that a settled turn, stall or not, never looks behind. mayLag(): when a
 * late final reply can change a verdict: only where the payload cannot tell
 * a reply without text from one still on its way to the file.
 */

import assert from "node:assert/strict";
import {
  behindReason,
  type LagEvidence,
  mayLag,
} from "../../src/detection/_lag_evidence.ts";
import type { StallKind } from "../../src/detection/classify.ts";
import type { Entry } from "../../src/transcript/entry.ts";

let offset = 0;
const base = (promptId: string | null = null) => ({
  offset: offset += 100,
  line: 0,
  promptId,
  sidechain: false,
  version: "2.1.145",
});
const prompt = (promptId: string | null = null): Entry => ({
  ...base(promptId),
  kind: "prompt",
});
const call = (id: string): Entry => ({
  ...base(),
  kind: "assistant",
  messageId: "msg_1",
  texts: [],
  toolUses: [{ id, name: "mcp__stub__echo" }],
  stopReason: "tool_use",
});
const result = (id: string): Entry => ({
  ...base(),
  kind: "results",
  results: [{ toolUseId: id, empty: false, userStopped: false, snippet: "" }],
});

/** A current payload: it sends fields only 2.1.145+ sends. */
const CURRENT: LagEvidence & { promptId: string | null } = {
  promptId: null,
  lastAssistantMessage: null,
  payloadSendsLastMessage: true,
};

function reason(
  entries: Entry[] | null,
  kinds: StallKind[] = [],
  payload = CURRENT,
  endedOnFile = false,
) {
  const turn = entries === null ? null : { entries, endedOnFile, opener: null };
  return behindReason(turn, payload, kinds);
}

Deno.test("behindReason() takes a transcript that does not exist yet to be behind", () => {
  assert.equal(reason(null), "no_file");
});

Deno.test("behindReason() takes a turn without a model reply (metadata or the prompt alone) to be behind", () => {
  assert.equal(reason([]), "no_reply");
  assert.equal(reason([prompt()]), "no_reply");
});

Deno.test("behindReason() takes a call without its result, or a message that stopped for a call not on file, to be behind", () => {
  const turn = [prompt(), call("toolu_1")];
  assert.equal(reason(turn, ["hung_mcp_call"]), "call_unsettled");
  assert.equal(reason(turn, ["pending_tool_use"]), "call_unsettled");
  assert.equal(reason(turn, ["lost_tool_call"]), "call_unsettled");
});

Deno.test("behindReason() takes an answered call with no follow-up as settled where the payload carries the final reply", () => {
  const turn = [prompt(), call("toolu_1"), result("toolu_1")];
  assert.equal(reason(turn, ["missing_followup"]), null);
  assert.equal(reason(turn, ["empty_tool_result"]), null);
  assert.equal(reason(turn), null);
});

Deno.test("behindReason() takes a stamped result whose prompt line is not on file to be behind, when a stall shows", () => {
  // Real 2.1.145 under load: the call and its result landed seconds before
  // the prompt line (and the rest of the turn).
  const stamped = { ...result("toolu_1"), promptId: "p1" } as Entry;
  const ahead = [call("toolu_1"), stamped];
  assert.equal(reason(ahead, ["missing_followup"]), "opener_unsent");
  // Once the prompt is on file (the turn's opener, or a late prompt line
  // the reader took into the turn) the file is not behind.
  const opened = { entries: ahead, endedOnFile: false, opener: prompt("p1") };
  assert.equal(behindReason(opened, CURRENT, ["missing_followup"]), null);
  assert.equal(reason([...ahead, prompt("p1")], ["missing_followup"]), null);
  // Another promptId's prompt did not open this turn.
  const other = { ...opened, opener: prompt("p0") };
  assert.equal(
    behindReason(other, CURRENT, ["missing_followup"]),
    "opener_unsent",
  );
  // A healthy verdict cannot change by waiting; unstamped files say nothing.
  assert.equal(reason(ahead, []), null);
  assert.equal(
    reason([call("toolu_1"), result("toolu_1")], ["missing_followup"]),
    null,
  );
});

Deno.test("behindReason() waits for the final reply only where the payload cannot carry it (before 2.1.47)", () => {
  const old = (entry: Entry): Entry => ({ ...entry, version: "2.0.76" });
  const turn = [prompt(), call("toolu_1"), result("toolu_1")].map(old);
  const oldPayload = { ...CURRENT, payloadSendsLastMessage: false };
  assert.equal(reason(turn, ["missing_followup"], oldPayload), "reply_unsent");
  assert.equal(
    reason(turn, [], oldPayload),
    null,
    "no stall: nothing to wait for",
  );
});

Deno.test("behindReason() takes a turn with no entry of the payload's prompt_id to be an older turn, where entries are stamped", () => {
  const payload = { ...CURRENT, promptId: "prompt-2" };
  const older = [prompt("prompt-1"), call("toolu_1"), result("toolu_1")];
  assert.equal(reason(older, [], payload), "other_prompt");
  const ours = [prompt("prompt-2"), call("toolu_1"), result("toolu_1")];
  assert.equal(reason(ours, [], payload), null);
  // A file that stamps nothing cannot tell.
  const unstamped = [prompt(), call("toolu_1"), result("toolu_1")];
  assert.equal(reason(unstamped, [], payload), null);
});

Deno.test("behindReason() takes a turn followed by its end-of-turn line to be one whose Stop already ran", () => {
  const turn = [prompt(), call("toolu_1"), result("toolu_1")];
  assert.equal(reason(turn, [], CURRENT, true), "turn_ended");
});

const versioned = (version?: string): Entry => ({
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
    mayLag({ ...silent, lastAssistantMessage: "Done." }, [versioned()]),
    false,
  );
  assert.equal(
    mayLag({ ...silent, payloadSendsLastMessage: true }, [versioned()]),
    false,
  );
  for (const version of ["2.1.47", "2.1.332", "2.2.0", "3.0.0-beta"]) {
    assert.equal(mayLag(silent, [versioned(version)]), false, version);
  }
});

Deno.test("mayLag() is true for older versions and when nothing shows one", () => {
  for (const version of ["2.1.46", "2.0.76", "1.0.98"]) {
    assert.equal(mayLag(silent, [versioned(version)]), true, version);
  }
  assert.equal(mayLag(silent, []), true);
  assert.equal(mayLag(silent, [versioned(), versioned("unknown")]), true);
  // The newest entry that names a version decides (a resumed session).
  assert.equal(
    mayLag(silent, [versioned("2.0.76"), versioned("2.1.332")]),
    false,
  );
  assert.equal(
    mayLag(silent, [versioned("2.1.332"), versioned("2.0.76")]),
    true,
  );
});

Deno.test("behindReason() takes a call without its result as settled when the payload's last_assistant_message is the text of the message that made it (the final reply is on file)", () => {
  const text = (words: string, messageId = "msg_1"): Entry => ({
    ...base(),
    kind: "assistant",
    messageId,
    texts: [words],
    toolUses: [],
  });
  const withText = (words: string) => ({
    ...CURRENT,
    lastAssistantMessage: words,
  });
  // 2.1.x writes a message's text and its call as two lines of one message.
  const turn = [prompt(), text("I'll read the  config\nfirst."), call("t1")];
  assert.equal(
    reason(turn, ["pending_tool_use"], withText("I'll read the config first.")),
    null,
  );
  // The final reply named by the payload is not on file yet: wait for it.
  assert.equal(
    reason(turn, ["pending_tool_use"], withText("The config is fine.")),
    "call_unsettled",
  );
  // An older message with that text proves nothing about the newest one.
  const older = [
    prompt(),
    text("The config is fine.", "msg_0"),
    call("t1"),
  ];
  assert.equal(
    reason(older, ["pending_tool_use"], withText("The config is fine.")),
    "call_unsettled",
  );
  // Claude Code's own texts prove nothing.
  assert.equal(
    reason(turn, ["pending_tool_use"], withText("(no content)")),
    "call_unsettled",
  );
  assert.equal(reason(turn, ["pending_tool_use"]), "call_unsettled");
});
