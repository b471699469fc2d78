/**
 * A rollout's raw line bytes to records: metadata lines skipped unparsed, a
 * line too long to parse judged from its ends, the rest parsed.
 *
 * @module
 */

import { decodeUtf8, parseJsonObjects } from "../transcript/json_line.ts";
import type { RawLine } from "../transcript/line_reader.ts";
import { isSkippableOpening, sniffRecord } from "./_rollout_sniff.ts";
import { type RolloutRecord, rolloutRecord } from "./_rollout_records.ts";

const OPENING_BYTES = 200;

/** The records on one raw line (usually zero or one); `lineNumber` 1-based, 0 unknown. */
export function rolloutLineRecords(
  raw: RawLine,
  lineNumber = 0,
): RolloutRecord[] {
  const opening = decodeUtf8(raw.head.subarray(0, OPENING_BYTES));
  if (isSkippableOpening(opening)) return [];
  const at = { offset: raw.offset, line: lineNumber };
  if (raw.clipped) {
    const record = sniffRecord(
      decodeUtf8(raw.head),
      decodeUtf8(raw.tail),
      at,
    );
    return record ? [record] : [];
  }
  const records: RolloutRecord[] = [];
  for (const object of parseJsonObjects(decodeUtf8(raw.head))) {
    const record = rolloutRecord(object, at);
    if (record) records.push(record);
  }
  return records;
}
