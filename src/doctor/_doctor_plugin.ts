/**
 * The `doctor` checks of stall-watch as a Claude Code plugin: whether it
 * runs here, what its launcher would start, and whether a settings file
 * registers stall-watch beside it (every stall nudged twice). Pure.
 *
 * @module
 */

import {
  describePlugin,
  type PluginState,
} from "../client_settings/plugin_records.ts";
import type { Scope } from "../client_settings/settings_scope.ts";
import type { CheckResult } from "./doctor_report.ts";

/** What the plugin's launcher (`hooks/launch.sh`) would find. */
export interface PluginRuntime {
  /** The release binary for this version and platform, when present. */
  binary: string | null;
  /** The Deno it would run the source with, or `null` for none. */
  deno: string | null;
  /** The last line of the binary's fetch (`fetch-status`), or `null`. */
  fetchStatus: string | null;
}

/** The plugin as `doctor` sees it. */
export interface PluginFacts {
  /** Its installations that apply here (`plugin_records.ts`). */
  states: PluginState[];
  /** Why Claude Code's plugin list could not be read, or `null`. */
  problem: string | null;
  /** For the enabled installation: what it would run. */
  runtime: PluginRuntime | null;
}

/** A settings file that registers stall-watch's hooks itself. */
interface SettingsRegistration {
  scope: Scope;
  display: string;
}

/** Whether the plugin runs here. */
export function pluginEnabled(plugin: PluginFacts): boolean {
  return plugin.states.some((s) => s.enabled);
}

/** The plugin's checks, in report order (none when it is not installed). */
export function pluginChecks(
  plugin: PluginFacts,
  registrations: readonly SettingsRegistration[],
): CheckResult[] {
  const results: CheckResult[] = [];
  if (plugin.problem !== null) {
    results.push({
      status: "warn",
      text:
        `cannot tell whether the stall-watch plugin is installed: ${plugin.problem}`,
      fix: 'see "claude plugin list"',
    });
  }
  for (const state of plugin.states) {
    if (!state.enabled) {
      results.push({
        status: "ok",
        text: `the Claude Code plugin ${
          describePlugin(state)
        } is installed but not enabled here${
          state.decidedBy ? ` (${state.decidedBy} settings)` : ""
        }`,
      });
      continue;
    }
    results.push({
      status: "ok",
      text: `runs as the Claude Code plugin ${describePlugin(state)}`,
    });
    if (plugin.runtime) results.push(runtimeCheck(plugin.runtime));
  }
  const enabled = plugin.states.find((s) => s.enabled);
  if (enabled && registrations.length > 0) {
    const files = [...new Set(registrations.map((r) => r.display))];
    const scopes = [...new Set(registrations.map((r) => r.scope))];
    results.push({
      status: "warn",
      text:
        `stall-watch runs twice at every stop: as the plugin ${enabled.install.id} and from ${
          files.join(", ")
        }, so each stall is nudged twice`,
      fix: `keep one: ${
        scopes.map((s) => `"stall-watch uninstall --scope ${s}"`).join(" and ")
      } (the plugin stays), or "claude plugin uninstall ${enabled.install.id}"`,
    });
  }
  return results;
}

function runtimeCheck(runtime: PluginRuntime): CheckResult {
  const lastFetch = runtime.fetchStatus
    ? `; last fetch: ${runtime.fetchStatus}`
    : "";
  if (runtime.binary) {
    return {
      status: "ok",
      text: `the plugin runs the release binary ${runtime.binary}`,
    };
  }
  if (runtime.deno) {
    return {
      status: "ok",
      text:
        `the plugin runs its source with ${runtime.deno} (no release binary here yet${lastFetch})`,
    };
  }
  return {
    status: "warn",
    text:
      `the plugin finds neither its release binary nor Deno, so it allows every stop${lastFetch}`,
    fix:
      "install Deno 2 (https://deno.com), or start a session with network access so that the plugin fetches its binary",
  };
}
