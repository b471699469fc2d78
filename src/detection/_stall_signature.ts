/**
 * What detection reports (re-exported by `classify.ts`, the face).
 *
 * @module
 */

import type { ToolInputSummary } from "../transcript/tool_input.ts";

/** Every stall kind (public contract), in the order reports list them. */
export const STALL_KINDS = [
  "pending_tool_use",
  "empty_tool_result",
  "hung_mcp_call",
  "missing_followup",
  "subagent_no_report",
  "lost_tool_call",
  "announced_no_call",
] as const;

/** A stall kind; `announced_no_call` is found by `announcement.ts`. */
export type StallKind = typeof STALL_KINDS[number];

/** One detected stall. */
export interface StallSignature {
  kind: StallKind;
  /** `""` for a `lost_tool_call` (no call is on file). */
  toolName: string;
  /** For a `lost_tool_call`, its message's id (the cap counts per id). */
  toolUseId: string;
  toolInput?: ToolInputSummary;
  /** Byte offset of the line that shows the stall. */
  offset: number;
  /** 1-based, or 0 until resolved. */
  line: number;
  /** Which rule fired, in words. */
  rule: string;
  /** For `announced_no_call`: the announcing sentence, as written (cut). */
  announcement?: string;
}

/** The classifier's answer for one turn. */
export interface TurnVerdict {
  signatures: StallSignature[];
  /** Why the turn is healthy, or which rule fired first. */
  reason: string;
  /** The turn ended on the client's API-error entry: the model never answered. */
  endedOnApiError?: true;
  /** One no nudge can fix (see `_api_error.ts`): no stall. */
  endedOnUnfixableError?: true;
  endedOnUsageLimit?: true;
}

/** A signature as logged and printed by `scan --json`. */
export function signatureData(
  signature: StallSignature,
): Record<string, unknown> {
  return {
    kind: signature.kind,
    tool_name: signature.toolName,
    tool_use_id: signature.toolUseId,
    line: signature.line,
    ...(signature.announcement === undefined
      ? {}
      : { announcement: signature.announcement }),
  };
}
