/**
 * The recovery texts: a preset's, with the config's overrides checked for slots no one fills.
 *
 * @module
 */

import type { StallKind } from "../detection/classify.ts";
import {
  type NudgePreset,
  type RecoveryText,
  slotsIn,
  TEMPLATE_SLOTS,
  unknownSlots,
} from "../recovery/nudge_texts.ts";

/** The preset's texts with the config's overrides; one with a slot never filled is a problem. */
export function recoveryText(
  file: ReadonlyMap<string, { value: unknown; where: string }>,
  base: RecoveryText,
  problems: { source: string; message: string }[],
): RecoveryText {
  const text = (key: string, fallback: string, filled: boolean): string => {
    const found = file.get(key);
    if (found === undefined) return fallback;
    if (typeof found.value !== "string" || found.value.trim() === "") {
      problems.push({
        source: found.where,
        message: `"${key}" must be a non-empty string`,
      });
      return fallback;
    }
    const bad = filled ? unknownSlots(found.value) : slotsIn(found.value);
    if (bad.length > 0) {
      problems.push({
        source: found.where,
        message: `"${key}" has ${
          bad.map((slot) => `{${slot}}`).join(", ")
        }, which is not filled in (${
          filled ? `slots: ${KNOWN_SLOTS}` : "slots are filled only in nudges"
        }); using the preset's text`,
      });
      return fallback;
    }
    return found.value;
  };
  const nudges = { ...base.nudges };
  for (const kind of Object.keys(nudges) as StallKind[]) {
    nudges[kind] = text(`recovery.nudges.${kind}`, nudges[kind], true);
  }
  return {
    header: text("recovery.header", base.header, false),
    idleHeader: text("recovery.idle_header", base.idleHeader, false),
    footer: text("recovery.footer", base.footer, false),
    defaultNudge: text("recovery.default_nudge", base.defaultNudge, true),
    nudges,
  };
}

/**
 * The preset's texts whatever a project's config says: its `recovery.*` would speak to the model in
 * stall-watch's voice (threat model 40), so they are set aside with one warning.
 */
export function projectRecoveryText(
  file: ReadonlyMap<string, { value: unknown; where: string }>,
  preset: NudgePreset,
  base: RecoveryText,
  problems: { source: string; message: string; warning?: true }[],
): RecoveryText {
  const keys = [...file.keys()].filter((key) => key.startsWith("recovery."));
  if (keys.length > 0) {
    const shown = keys.slice(0, 3).join(", ") +
      (keys.length > 3 ? `, and ${keys.length - 3} more` : "");
    problems.push({
      source: file.get(keys[0] as string)?.where ?? "",
      message:
        `the project's config may not set recovery texts (${shown}): they would reach the model as stall-watch's own words; using the "${preset}" preset's (set them in your own config, named by STALL_WATCH_CONFIG outside the project)`,
      warning: true,
    });
  }
  return base;
}

const KNOWN_SLOTS = Object.keys(TEMPLATE_SLOTS).map((s) => `{${s}}`).join(", ");
