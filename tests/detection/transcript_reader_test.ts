/**
 * The client seam: detection judges the entries a client's reader gives
 * (`TranscriptReader`), never the file's format, so a second client's
 * reader slots in beside Claude Code's without touching the judgement.
 */

import assert from "node:assert/strict";
import { detectStalls } from "../../src/detection/detect.ts";
import type { Entry } from "../../src/transcript/entry.ts";
import type {
  TranscriptReader,
  TurnScan,
} from "../../src/transcript/tail_scan.ts";
import { tempTranscript } from "../support/temp_project.ts";

/** Three lines of a format Claude Code's reader knows nothing of. */
const LINES = [
  '{"kind":"turn","text":"Run the tests."}',
  '{"kind":"call","id":"call_1","name":"exec_command"}',
  '{"kind":"note"}',
];

/** Line `i`'s byte offset in the file of {@link LINES}. */
function offsetOf(i: number): number {
  return LINES.slice(0, i).reduce((sum, line) => sum + line.length + 1, 0);
}

/** A reader of that format: a prompt, then a call with no result. */
function fakeReader(): TranscriptReader & { reads: number } {
  const base = { line: 0, promptId: null, sidechain: false };
  const entries: Entry[] = [
    { kind: "prompt", offset: offsetOf(0), ...base },
    {
      kind: "assistant",
      offset: offsetOf(1),
      ...base,
      messageId: "m1",
      texts: [],
      toolUses: [{ id: "call_1", name: "exec_command" }],
    },
  ];
  const reader = {
    reads: 0,
    currentTurn: (): Promise<TurnScan> => {
      reader.reads++;
      const size = offsetOf(LINES.length);
      return Promise.resolve({
        entries,
        reachedStart: true,
        startOffset: 0,
        opener: entries[0]!,
        budget: null,
        fileSize: size,
        bytesScanned: size,
        endOffset: size,
        stopped: false,
        endedOnFile: false,
      });
    },
    appended: (_path: string, from: number) =>
      Promise.resolve({ changed: false, to: from }),
  };
  return reader;
}

const INPUT = {
  promptId: null,
  isSubagent: false,
  lastAssistantMessage: null,
  backgroundTasks: [],
};

Deno.test("detectStalls() judges the entries the reader passed in gives, and numbers their lines in the file", async () => {
  await using file = await tempTranscript(LINES.join("\n") + "\n");
  const reader = fakeReader();
  const detection = await detectStalls({ ...INPUT, scanPath: file.path }, {
    lagWaitMs: 0,
    sleep: () => Promise.resolve(),
    reader,
  });
  assert.equal(reader.reads, 1);
  assert.deepEqual(
    detection.signatures.map((s) => [s.kind, s.toolUseId, s.line]),
    [["pending_tool_use", "call_1", 2]],
  );
  // Claude Code's reader finds no turn of its own in the same file.
  const claude = await detectStalls({ ...INPUT, scanPath: file.path }, {
    lagWaitMs: 0,
    sleep: () => Promise.resolve(),
  });
  assert.deepEqual(claude.signatures, []);
});
