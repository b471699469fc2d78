/**
 * doctor's checks of stall-watch as a Claude Code plugin: whether it runs
 * here, what its launcher would start, and a settings registration beside
 * it (every stall nudged twice). Pure.
 *
 * @module
 */

import {
  describePlugin,
  type PluginState,
} from "../client_settings/plugin_records.ts";
import type { Scope } from "../client_settings/settings_scope.ts";
import type { CheckResult } from "./doctor_report.ts";

/** What the plugin's launcher (`hooks/launch.sh`) would find: its release binary, a Deno, the last line of `fetch-status`. */
export interface PluginRuntime {
  binary: string | null;
  deno: string | null;
  fetchStatus: string | null;
}

/** The plugin as `doctor` sees it: its installations here, why its list was unreadable, what the enabled one would run. */
export interface PluginFacts {
  states: PluginState[];
  problem: string | null;
  runtime: PluginRuntime | null;
}

/** Whether the plugin runs here. */
export function pluginEnabled(plugin: PluginFacts): boolean {
  return plugin.states.some((s) => s.enabled);
}

/** The plugin's checks, in report order (none when it is not installed). */
export function pluginChecks(
  plugin: PluginFacts,
  registrations: readonly { scope: Scope; display: string }[],
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
    const named = `the Claude Code plugin ${describePlugin(state)}`;
    const by = state.decidedBy ? ` (${state.decidedBy} settings)` : "";
    results.push({
      status: "ok",
      text: state.enabled
        ? `runs as ${named}`
        : `${named} is installed but not enabled here${by}`,
    });
    if (state.enabled && plugin.runtime) {
      results.push(runtimeCheck(plugin.runtime));
    }
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
