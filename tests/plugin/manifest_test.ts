/**
 * The plugin's manifests and hooks.json against what the rest of the
 * repository says: one version, the events each handler acts on, the
 * watchdog's timeout and option, and scripts that exist.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { HANDLER_EVENTS } from "../../src/claude_client/hook_events.ts";
import { WATCH_TIMEOUT_MARGIN } from "../../src/install/hook_command.ts";
import { DEFAULT_SETTINGS } from "../../src/config/settings.ts";
import { REPO } from "../support/plugin_scripts.ts";
import { RUNS_SH_SCRIPTS, skipWhere } from "../support/platform.ts";

const readJson = async (...path: string[]) =>
  JSON.parse(await Deno.readTextFile(join(REPO, ...path)));

const denoJson = await readJson("deno.json");
const plugin = await readJson(".claude-plugin", "plugin.json");
const marketplace = await readJson(".claude-plugin", "marketplace.json");
const hooks = (await readJson("hooks", "hooks.json")).hooks;

/** The handlers of one event in hooks.json. */
function handlersOf(event: string): Record<string, unknown>[] {
  const groups = hooks[event] as { hooks: Record<string, unknown>[] }[];
  assert.equal(groups.length, 1, event);
  return groups[0]!.hooks;
}

Deno.test("the plugin's version is deno.json's", () => {
  assert.equal(plugin.version, denoJson.version);
  assert.equal("version" in marketplace.plugins[0], false);
});

Deno.test(
  skipWhere(
    "the launcher reads the plugin's version as deno.json has it",
    RUNS_SH_SCRIPTS,
  ),
  async () => {
    const out = await new Deno.Command("sh", {
      args: [
        "-c",
        '. "$1/hooks/lib.sh" && plugin_version "$1" && echo "$version"',
        "sh",
        REPO,
      ],
      stdout: "piped",
    }).output();
    assert.equal(new TextDecoder().decode(out.stdout), `${plugin.version}\n`);
  },
);

Deno.test("the marketplace lists one plugin, stall-watch, at the repository root", () => {
  assert.equal(marketplace.name, "stall-watch");
  assert.deepEqual(marketplace.plugins.map((p: { name: string }) => p.name), [
    "stall-watch",
  ]);
  assert.equal(marketplace.plugins[0].source, "./");
  assert.equal(plugin.name, "stall-watch");
  assert.equal(plugin.license, "MIT");
  assert.match(
    Deno.readTextFileSync(join(REPO, "LICENSE")),
    /^MIT License\n/,
  );
});

Deno.test("hooks.json: the hook on Stop and SubagentStop, the watchdog on its events, the fetch at SessionStart", () => {
  assert.deepEqual(
    Object.keys(hooks).sort(),
    ["SessionStart", ...HANDLER_EVENTS.hook, ...HANDLER_EVENTS.watch].sort(),
  );
  for (const event of HANDLER_EVENTS.hook) {
    const [handler] = handlersOf(event);
    assert.match(
      String(handler!.command),
      /hooks\/launch\.sh"; if .* \/bin\/sh "\$f"; else /,
    );
    assert.equal(handler!.timeout, 30);
    assert.equal(handler!.async, undefined);
  }
  for (const event of HANDLER_EVENTS.watch) {
    assert.equal(hooks[event][0].matcher, "*");
    const [handler] = handlersOf(event);
    assert.match(
      String(handler!.command),
      /hooks\/launch\.sh"; .* \/bin\/sh "\$f" watch; fi$/,
    );
    assert.equal(handler!.async, true);
    assert.equal(handler!.asyncRewake, true);
    // Claude Code must never kill a watcher before its own deadline.
    assert.equal(
      handler!.timeout,
      DEFAULT_SETTINGS.watchMaxSeconds + WATCH_TIMEOUT_MARGIN,
    );
  }
  const [fetch] = handlersOf("SessionStart");
  assert.match(
    String(fetch!.command),
    /hooks\/fetch\.sh"; if .* \/bin\/sh "\$f"; fi$/,
  );
  assert.equal(hooks.SessionStart[0].matcher, undefined);
  // The shell is named by its path: PATH, which a repository's settings can
  // set for the plugin's hooks, never chooses it.
  for (const event of Object.keys(hooks)) {
    for (const handler of handlersOf(event)) {
      assert.doesNotMatch(String(handler.command), /(?<!\/bin\/)\bsh "/);
    }
  }
});

Deno.test("every script hooks.json names exists, and the watchdog option is the one the launcher reads", async () => {
  const scripts = new Set<string>();
  for (const event of Object.keys(hooks)) {
    for (const handler of handlersOf(event)) {
      for (
        const [, script] of String(handler.command).matchAll(
          /\/hooks\/([\w.]+)"/g,
        )
      ) {
        scripts.add(script!);
      }
    }
  }
  assert.deepEqual([...scripts].sort(), ["fetch.sh", "launch.sh"]);
  for (const script of scripts) {
    assert.ok((await Deno.stat(join(REPO, "hooks", script))).isFile);
  }
  assert.deepEqual(Object.keys(plugin.userConfig), ["watchdog"]);
  assert.equal(plugin.userConfig.watchdog.type, "boolean");
  assert.equal(plugin.userConfig.watchdog.default, false);
  const launcher = await Deno.readTextFile(join(REPO, "hooks", "launch.sh"));
  assert.ok(launcher.includes('"${CLAUDE_PLUGIN_OPTION_WATCHDOG-}" != true'));
});
