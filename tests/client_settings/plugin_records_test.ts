/**
 * Reading Claude Code's records of stall-watch as a plugin: the entries of
 * `installed_plugins.json` (shapes cut from Claude Code 2.1.332's files)
 * and which settings file decides whether it runs in a project.
 */

import assert from "node:assert/strict";
import {
  describePlugin,
  installedPluginsPath,
  isStallWatchId,
  parseInstalledPlugins,
  pluginDataDir,
  pluginState,
  type SettingsLayer,
} from "../../src/client_settings/plugin_records.ts";

/** `installed_plugins.json` after `install` at user, project and local scope. */
const RECORDS = JSON.stringify(
  {
    version: 2,
    plugins: {
      "stall-watch@stall-watch": [
        {
          scope: "user",
          installPath: "/h/.claude/plugins/cache/stall-watch/stall-watch/0.1.0",
          version: "0.1.0",
          installedAt: "2026-12-01T20:04:04.758Z",
          lastUpdated: "2026-12-01T20:04:04.758Z",
          gitCommitSha: "adca274175c6ef014c7f077b055bd51669743db6",
        },
        {
          scope: "project",
          projectPath: "/work/proj",
          installPath: "/h/.claude/plugins/cache/stall-watch/stall-watch/0.1.0",
          version: "0.1.0",
          installedAt: "2026-12-01T20:10:00.563Z",
          lastUpdated: "2026-12-01T20:10:00.563Z",
          gitCommitSha: "aff5cfc0ee3e02a0703626c877f2c766d5350007",
        },
      ],
      "stall-watch-notify@acme": [{ scope: "user", version: "1.0.0" }],
      "other@stall-watch": [{ scope: "user", version: "2.0.0" }],
    },
  },
  null,
  2,
);

const same = (a: string, b: string) => a === b;

Deno.test("parseInstalledPlugins() keeps the stall-watch entries of any marketplace, nothing else", () => {
  const installs = parseInstalledPlugins(RECORDS);
  assert.deepEqual(installs.map((i) => [i.id, i.scope, i.projectPath]), [
    ["stall-watch@stall-watch", "user", null],
    ["stall-watch@stall-watch", "project", "/work/proj"],
  ]);
  assert.equal(installs[0]!.version, "0.1.0");
  assert.deepEqual(
    parseInstalledPlugins(
      JSON.stringify({
        plugins: {
          "stall-watch@fork": [{ scope: "local", projectPath: "/p" }],
        },
      }),
    ).map((i) => i.id),
    ["stall-watch@fork"],
  );
  assert.equal(isStallWatchId("stall-watch@"), false);
  assert.equal(isStallWatchId("stall-watcher@m"), false);
});

Deno.test("parseInstalledPlugins() skips odd shapes and throws only on text that is not JSON", () => {
  for (
    const text of [
      "{}",
      "[]",
      "null",
      '{"plugins": []}',
      '{"plugins": {"stall-watch@m": {}}}',
      '{"plugins": {"stall-watch@m": [1, null, {"scope": 3}]}}',
      '{"plugins": {"__proto__": [{"scope": "user"}]}}',
    ]
  ) {
    assert.deepEqual(parseInstalledPlugins(text), [], text);
  }
  assert.throws(() => parseInstalledPlugins("{not json"), SyntaxError);
});

Deno.test("pluginState(): the most specific settings file decides, project installs apply to their project only", () => {
  const installs = parseInstalledPlugins(RECORDS);
  const id = "stall-watch@stall-watch";
  const layer = (
    scope: SettingsLayer["scope"],
    value: unknown,
  ): SettingsLayer => ({
    scope,
    settings: { enabledPlugins: { [id]: value } },
  });
  // Elsewhere only the user install applies.
  let states = pluginState(installs, [layer("user", true)], "/else", same);
  assert.deepEqual(
    states.map((s) => [s.install.scope, s.enabled, s.decidedBy]),
    [
      ["user", true, "user"],
    ],
  );
  // In the project both apply; local false beats project and user true,
  // in whatever order the files come.
  states = pluginState(
    installs,
    [layer("local", false), layer("user", true), layer("project", true)],
    "/work/proj",
    same,
  );
  assert.deepEqual(
    states.map((s) => [s.install.scope, s.enabled, s.decidedBy]),
    [
      ["user", false, "local"],
      ["project", false, "local"],
    ],
  );
  // Not named anywhere, or not a boolean: not enabled.
  states = pluginState(
    installs,
    [layer("user", "yes"), { scope: "project", settings: {} }],
    "/else",
    same,
  );
  assert.deepEqual(states.map((s) => [s.enabled, s.decidedBy]), [[
    false,
    null,
  ]]);
  assert.equal(
    describePlugin(states[0]!),
    "stall-watch@stall-watch 0.1.0 (user scope)",
  );
});

Deno.test("the records' paths: installed_plugins.json and the data folder the plugin's hooks get", () => {
  assert.equal(
    installedPluginsPath("/h/.claude"),
    "/h/.claude/plugins/installed_plugins.json",
  );
  // Measured: CLAUDE_PLUGIN_DATA of stall-watch@stall-watch.
  assert.equal(
    pluginDataDir("/h/.claude", "stall-watch@stall-watch"),
    "/h/.claude/plugins/data/stall-watch-stall-watch",
  );
  assert.equal(
    pluginDataDir("C:\\u\\.claude", "stall-watch@my.fork", "\\"),
    "C:\\u\\.claude\\plugins\\data\\stall-watch-my-fork",
  );
});
