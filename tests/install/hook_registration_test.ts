/**
 * Install and uninstall plans on settings text: absent, empty, full of
 * other hooks, holding an older stall-watch entry, laid out in unusual
 * ways (every byte outside the edit kept), and malformed (refused).
 */

import assert from "node:assert/strict";
import fc from "fast-check";
import {
  findOwnHandlers,
  type InstallRequest,
  planInstall,
  planUninstall,
} from "../../src/install/hook_registration.ts";
import { findTurnEndingHooks } from "../../src/install/registered_hooks.ts";
import {
  type HookEvent,
  selfInvocation,
  WATCH_EVENTS,
} from "../../src/install/hook_command.ts";
import { HOOK_PERMISSION_FLAGS } from "../../src/shared/permissions.ts";
import { SettingsFileError } from "../../src/client_settings/settings_json.ts";

const BIN = "/opt/tools/stall-watch";
const COMMAND = `cd -- \\"$CLAUDE_PROJECT_DIR\\" || exit 1; ${BIN}`;

function request(
  events: HookEvent[] = ["Stop"],
  timeout: number | null = null,
): InstallRequest {
  return {
    invocation: selfInvocation(BIN, "file:///b/main.ts", "posix"),
    platform: "posix",
    knownPaths: [BIN],
    events,
    timeout,
    watchTimeout: 660,
  };
}

function install(text: string, events?: HookEvent[], timeout?: number) {
  return planInstall(text, "settings.json", request(events, timeout ?? null));
}

function uninstall(text: string) {
  return planUninstall(text, "settings.json", [BIN]);
}

/** Asserts `after` is `before` with `inserted` put at `at` and nothing else changed. */
function assertInsertedOnly(
  before: string,
  after: string,
  at: number,
  inserted: string,
) {
  assert.equal(after, before.slice(0, at) + inserted + before.slice(at));
}

const OTHER_HOOKS = `{
  "model": "claude-opus-4",
  "permissions": { "allow": ["Bash(git status)"] },
  "hooks": {
    "PreToolUse": [
      {
        "matcher": "Bash",
        "hooks": [{ "type": "command", "command": "~/hooks/guard.sh" }]
      }
    ],
    "Stop": [
      {
        "hooks": [
          { "type": "command", "command": "notify-send 'done'", "timeout": 5 }
        ]
      }
    ]
  },
  "env": { "FOO": "1" }
}
`;

Deno.test("planInstall() on an absent or empty file writes a new settings object", () => {
  const expected = `{
  "hooks": {
    "Stop": [
      {
        "hooks": [
          {
            "type": "command",
            "command": "${COMMAND}",
            "timeout": 30
          }
        ]
      }
    ]
  }
}
`;
  for (const text of ["", "\n", "  \n"]) {
    const plan = install(text);
    assert.equal(plan.text, expected);
    assert.deepEqual(plan.changes, [
      `Stop: added cd -- "$CLAUDE_PROJECT_DIR" || exit 1; ${BIN}`,
    ]);
  }
  assert.equal(install("{}\n").text, expected);
});

Deno.test("planInstall() adds a group after the other Stop hooks and touches nothing else", () => {
  const plan = install(OTHER_HOOKS, ["Stop", "SubagentStop"]);
  const stopEnd = OTHER_HOOKS.indexOf("}\n    ]\n  },") + 1;
  const withStop = OTHER_HOOKS.slice(0, stopEnd) + `,
      {
        "hooks": [
          {
            "type": "command",
            "command": "${COMMAND}",
            "timeout": 30
          }
        ]
      }` + OTHER_HOOKS.slice(stopEnd);
  const hooksEnd = withStop.indexOf('\n  },\n  "env"');
  assertInsertedOnly(
    withStop,
    plan.text,
    hooksEnd,
    `,
    "SubagentStop": [
      {
        "hooks": [
          {
            "type": "command",
            "command": "${COMMAND}",
            "timeout": 30
          }
        ]
      }
    ]`,
  );
  assert.equal(plan.changes.length, 2);
});

Deno.test("planInstall() is idempotent: a second run changes nothing", () => {
  for (const start of ["", OTHER_HOOKS, '{"a":1}']) {
    const first = install(start, ["Stop", "SubagentStop", "PostToolUse"]);
    const second = install(first.text, [
      "Stop",
      "SubagentStop",
      "PostToolUse",
    ]);
    assert.deepEqual(second, { text: first.text, changes: [] });
    // Without the flags, the registered extras are kept, not removed.
    assert.deepEqual(install(first.text).changes, []);
  }
});

Deno.test("planInstall() updates an older stall-watch entry in place instead of adding one", () => {
  const old = `{
    "hooks": {
        "Stop": [
            {
                "hooks": [
                    { "type": "command", "command": "notify-send done" },
                    { "type": "command", "command": "/old/place/stall-watch", "timeout": 12 }
                ]
            }
        ]
    }
}
`;
  const plan = install(old);
  assert.equal(
    plan.text,
    old.replace(
      '"/old/place/stall-watch"',
      `"${COMMAND}"`,
    ),
    "only the command string changes; the custom timeout 12 is kept",
  );
  assert.deepEqual(plan.changes, [
    `Stop: updated command of /old/place/stall-watch -> cd -- "$CLAUDE_PROJECT_DIR" || exit 1; ${BIN}`,
  ]);
  assert.match(install(old, ["Stop"], 40).text, /"timeout": 40 \}/);
});

Deno.test("planInstall() from the binary replaces an entry installed from a source checkout", () => {
  const flags = HOOK_PERMISSION_FLAGS.join(" ");
  const fromSource =
    `cd \\"$CLAUDE_PROJECT_DIR\\" && /home/me/.deno/bin/deno run ${flags} /home/me/src/sw/main.ts`;
  const text =
    `{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"${fromSource}","timeout":30}]}]}}`;
  const plan = install(text);
  assert.equal(
    plan.text,
    `{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"${COMMAND}","timeout":30}]}]}}`,
  );
  assert.equal(plan.changes.length, 1);
});

Deno.test("planInstall() removes an if from a Stop handler and drops duplicate registrations", () => {
  const text = `{
  "hooks": {
    "Stop": [
      { "hooks": [{ "type": "command", "command": "${COMMAND}", "timeout": 30, "if": "Bash(*)" }] },
      { "hooks": [{ "type": "command", "command": "/usr/bin/stall-watch" }] },
      { "hooks": [{ "type": "command", "command": "echo keep" }, { "type": "command", "command": "stall-watch" }] }
    ]
  }
}
`;
  const plan = install(text);
  const settings = JSON.parse(plan.text);
  assert.deepEqual(settings.hooks.Stop, [
    {
      hooks: [{
        type: "command",
        command: JSON.parse(`"${COMMAND}"`),
        timeout: 30,
      }],
    },
    { hooks: [{ type: "command", command: "echo keep" }] },
  ]);
  assert.deepEqual(
    plan.changes.map((c) => c.split(" ").slice(0, 3).join(" ")),
    [
      "Stop: updated if",
      "Stop: removed duplicate",
      "Stop: removed duplicate",
    ],
  );
});

Deno.test("planInstall() keeps tabs and CRLF line endings", () => {
  const text =
    '{\r\n\t"model": "opus",\r\n\t"hooks": {\r\n\t\t"Notification": []\r\n\t}\r\n}\r\n';
  const plan = install(text);
  assertInsertedOnly(
    text,
    plan.text,
    text.indexOf("[]") + 2,
    ',\r\n\t\t"Stop": [\r\n\t\t\t{\r\n\t\t\t\t"hooks": [\r\n\t\t\t\t\t{\r\n' +
      `\t\t\t\t\t\t"type": "command",\r\n\t\t\t\t\t\t"command": "${COMMAND}",\r\n` +
      '\t\t\t\t\t\t"timeout": 30\r\n\t\t\t\t\t}\r\n\t\t\t\t]\r\n\t\t\t}\r\n\t\t]',
  );
});

Deno.test("planInstall() keeps a one-line file on one line", () => {
  const text = '{"model":"opus","hooks":{"Stop":[]}}';
  const plan = install(text);
  assertInsertedOnly(
    text,
    plan.text,
    text.indexOf("[]") + 1,
    `{"hooks":[{"type":"command","command":"${COMMAND}","timeout":30}]}`,
  );
  assert.equal(uninstall(plan.text).text, '{"model":"opus","hooks":{}}');
});

Deno.test("planInstall() keeps a file without a final newline that way", () => {
  const text = '{\n  "a": 1\n}';
  const plan = install(text);
  assert.ok(plan.text.startsWith('{\n  "a": 1,\n  "hooks": {\n'));
  assert.ok(plan.text.endsWith("\n  }\n}"));
});

Deno.test("planInstall() on Windows registers exec form", () => {
  const plan = planInstall("", "settings.json", {
    ...request(["Stop"]),
    invocation: selfInvocation(
      "C:\\bin\\stall-watch.exe",
      "file:///C:/b/main.ts",
      "windows",
    ),
    platform: "windows",
    knownPaths: ["C:/bin/stall-watch.exe"],
  });
  assert.deepEqual(JSON.parse(plan.text).hooks.Stop[0].hooks[0], {
    type: "command",
    command: "C:/bin/stall-watch.exe",
    args: [],
    timeout: 30,
  });
});

Deno.test("planInstall() gives the watch handler a timeout above the watchdog deadline", () => {
  const text =
    `{"hooks":{"PostToolUse":[{"matcher":"*","hooks":[{"type":"command","command":"${BIN} watch","timeout":60}]}]}}`;
  const watch = JSON.parse(install(text).text).hooks.PostToolUse[0].hooks[0];
  assert.equal(watch.timeout, 660);
  assert.equal(watch.async, true);
  assert.equal(watch.asyncRewake, true);
});

Deno.test("planInstall() registers the watch handler for failed tool calls too, and uninstall removes both", () => {
  const plan = planInstall("{}", "settings.json", {
    invocation: { program: BIN, args: [], fromSource: false },
    platform: "posix",
    knownPaths: [BIN],
    events: ["Stop", ...WATCH_EVENTS],
    timeout: null,
    watchTimeout: 660,
  });
  const hooks = JSON.parse(plan.text).hooks;
  assert.deepEqual(Object.keys(hooks), [
    "Stop",
    "PostToolUse",
    "PostToolUseFailure",
  ]);
  for (const event of WATCH_EVENTS) {
    assert.equal(hooks[event][0].matcher, "*");
    const handler = hooks[event][0].hooks[0];
    assert.match(handler.command, / watch$/);
    assert.equal(handler.async, true);
    assert.equal(handler.asyncRewake, true);
    assert.equal(handler.timeout, 660);
  }
  assert.deepEqual(
    JSON.parse(planUninstall(plan.text, "settings.json", [BIN]).text),
    { hooks: {} },
  );
});

Deno.test("planInstall() refuses files that are not strict JSON, naming line and column", () => {
  const cases: [string, RegExp][] = [
    [
      '{\n  // mine\n  "a": 1\n}',
      /2:3: a comment, which strict JSON does not allow/,
    ],
    ['{\n  "a": 1,\n}', /3:1: property name expected \(a trailing comma\?\)/],
    ['{"a": 1', /"\}" expected/],
    ["\uFEFF{}", /byte order mark/],
    ["[]", /top level is not a JSON object/],
    ['{"hooks": []}', /"hooks" value that is not an object/],
    ['{"hooks": {"Stop": {}}}', /"hooks.Stop" value that is not an array/],
  ];
  for (const [text, message] of cases) {
    assert.throws(() => install(text), (error: unknown) => {
      assert.ok(error instanceof SettingsFileError, text);
      assert.match(error.message, message);
      assert.doesNotMatch(error.message, /\n/);
      return true;
    });
  }
  assert.throws(() => uninstall("{ /* x */ }"), SettingsFileError);
});

Deno.test("planUninstall() removes only stall-watch's handlers and what that empties", () => {
  const installed = install(OTHER_HOOKS, [
    "Stop",
    "SubagentStop",
    "PostToolUse",
  ]).text;
  const plan = uninstall(installed);
  assert.equal(plan.text, OTHER_HOOKS, "back to the original bytes");
  assert.deepEqual(plan.changes.map((c) => c.split(":")[0]), [
    "Stop",
    "SubagentStop",
    "PostToolUse",
  ]);
  assert.deepEqual(uninstall(OTHER_HOOKS), { text: OTHER_HOOKS, changes: [] });
});

Deno.test("planUninstall() keeps other handlers in a shared group and an emptied hooks object", () => {
  const text = `{
  "hooks": {
    "Stop": [
      { "hooks": [{ "type": "command", "command": "echo a" }, { "type": "command", "command": "${BIN}" }] }
    ],
    "PostToolUse": [
      { "matcher": "*", "hooks": [{ "type": "command", "command": "stall-watch watch", "async": true }] },
      { "matcher": "Edit", "hooks": [{ "type": "command", "command": "stall-watch-lint" }] }
    ]
  }
}
`;
  const plan = uninstall(text);
  assert.deepEqual(JSON.parse(plan.text), {
    hooks: {
      Stop: [{ hooks: [{ type: "command", command: "echo a" }] }],
      PostToolUse: [
        {
          matcher: "Edit",
          hooks: [{ type: "command", command: "stall-watch-lint" }],
        },
      ],
    },
  });
  assert.equal(
    uninstall(
      `{\n  "hooks": {\n    "Stop": [{ "hooks": [{ "type": "command", "command": "${BIN}" }] }]\n  },\n  "x": 1\n}\n`,
    )
      .text,
    '{\n  "hooks": {},\n  "x": 1\n}\n',
  );
});

Deno.test("findOwnHandlers() ignores oddly shaped entries instead of failing", () => {
  const settings = {
    hooks: {
      Stop: [null, { hooks: "x" }, {
        hooks: [1, { type: "prompt", command: BIN }],
      }],
      PostToolUse: [{ hooks: [{ type: "command", command: BIN }] }],
    },
  };
  assert.deepEqual(findOwnHandlers(settings, [BIN]), []);
});

Deno.test("install then uninstall restores any pretty-printed settings byte for byte", () => {
  const command = fc.constantFrom("echo hi", "~/h.sh", "notify-send x");
  const group = fc.record({
    matcher: fc.constantFrom("Bash", "*", ""),
    hooks: fc.array(
      fc.record({ type: fc.constant("command"), command }),
      { minLength: 1, maxLength: 3 },
    ),
  });
  const settings = fc.record({
    model: fc.string(),
    hooks: fc.dictionary(
      fc.constantFrom("Stop", "PreToolUse", "PostToolUse", "SessionStart"),
      fc.array(group, { maxLength: 3 }),
    ),
    env: fc.dictionary(fc.string(), fc.string()),
  }, { requiredKeys: ["hooks"] });
  fc.assert(
    fc.property(settings, fc.constantFrom(2, 4, "\t"), (value, indent) => {
      const text = JSON.stringify(value, null, indent) + "\n";
      const events: HookEvent[] = ["Stop", "SubagentStop", "PostToolUse"];
      const installed = install(text, events);
      assert.equal(
        findOwnHandlers(JSON.parse(installed.text), [BIN]).length,
        3,
      );
      assert.deepEqual(install(installed.text, events).changes, []);
      const restored = uninstall(installed.text).text;
      const emptied = Object.keys(value.hooks).filter((k) =>
        (value.hooks[k]?.length ?? 0) === 0 &&
        ["Stop", "PostToolUse"].includes(k)
      );
      if (emptied.length === 0) assert.equal(restored, text);
      else assert.deepEqual(JSON.parse(restored), dropKeys(value, emptied));
    }),
    { numRuns: 150 },
  );
});

function dropKeys<T extends { hooks: Record<string, unknown> }>(
  value: T,
  keys: string[],
): T {
  const hooks = { ...value.hooks };
  for (const key of keys) delete hooks[key];
  return { ...value, hooks };
}

Deno.test("findTurnEndingHooks() lists every PreToolUse and PostToolUse handler that is not stall-watch's, of any type", () => {
  const settings = {
    hooks: {
      PreToolUse: [
        { matcher: "Bash", hooks: [{ type: "command", command: "./gate.sh" }] },
        { hooks: [{ type: "prompt", prompt: "Is this call allowed?" }] },
      ],
      PostToolUse: [{
        matcher: "*",
        hooks: [
          { type: "command", command: `${BIN} watch`, async: true },
          { type: "http", url: "https://policy.example/hook" },
        ],
      }],
      // A failed call's hook cannot end the turn (measured); Stop is after it.
      PostToolUseFailure: [{ hooks: [{ type: "command", command: "x" }] }],
      Stop: [{ hooks: [{ type: "command", command: "./quality-gate.sh" }] }],
    },
  };
  assert.deepEqual(findTurnEndingHooks(settings, [BIN]), [
    { event: "PreToolUse", what: "./gate.sh" },
    { event: "PreToolUse", what: "a prompt hook" },
    { event: "PostToolUse", what: "https://policy.example/hook" },
  ]);
  assert.deepEqual(findTurnEndingHooks({ hooks: "odd" }, [BIN]), []);
  assert.deepEqual(findTurnEndingHooks({}, [BIN]), []);
});

Deno.test("planInstall() with statusLine adds stall-watch's status line once, updates its own, and leaves someone else's alone", () => {
  const withLine = (text: string) =>
    planInstall(text, "settings.json", { ...request(), statusLine: true });
  const first = withLine("{}\n");
  const settings = JSON.parse(first.text);
  assert.deepEqual(settings.statusLine, {
    type: "command",
    command: `${BIN} statusline`,
    refreshInterval: 30,
  });
  assert.deepEqual(first.changes.slice(-1), [
    `statusLine: added ${BIN} statusline (refreshInterval 30 s)`,
  ]);
  // Idempotent; an older refresh interval is brought up to date.
  assert.deepEqual(withLine(first.text).changes, []);
  settings.statusLine.refreshInterval = 5;
  const updated = withLine(JSON.stringify(settings));
  assert.deepEqual(updated.changes, [
    `statusLine: updated refreshInterval of ${BIN} statusline (refreshInterval 30 s)`,
  ]);
  // Someone else's status line: refused, named, nothing written.
  const theirs = JSON.stringify({
    statusLine: { type: "command", command: "~/.claude/statusline.sh" },
  });
  assert.throws(
    () => withLine(theirs),
    (error: unknown) =>
      error instanceof SettingsFileError &&
      error.message.includes(
        "already has a status line (~/.claude/statusline.sh)",
      ),
  );
  // Without the option the status line is not touched.
  assert.equal(install(theirs).text.includes("statusline.sh"), true);
});

Deno.test("planUninstall() removes stall-watch's status line and keeps someone else's", () => {
  const ours = JSON.stringify({
    statusLine: { type: "command", command: `${BIN} statusline` },
    model: "opus",
  });
  const removed = uninstall(ours);
  assert.deepEqual(JSON.parse(removed.text), { model: "opus" });
  assert.deepEqual(removed.changes, [`statusLine: removed ${BIN} statusline`]);
  const theirs = JSON.stringify({
    statusLine: { type: "command", command: `${BIN}-helper statusline` },
  });
  assert.deepEqual(uninstall(theirs).changes, []);
});

Deno.test("a status line running a program inside the project is not stall-watch's: uninstall keeps it, install --statusline leaves it", () => {
  for (
    const command of [
      '"$CLAUDE_PROJECT_DIR"/tools/stall-watch statusline',
      "${CLAUDE_PROJECT_DIR}/bin/stall-watch statusline",
      "tools/stall-watch statusline",
      "./stall-watch statusline",
      'deno run --quiet --allow-read --allow-write=.claude --allow-env --no-prompt "$CLAUDE_PROJECT_DIR/main.ts" statusline',
    ]
  ) {
    const text = JSON.stringify({ statusLine: { type: "command", command } });
    assert.deepEqual(uninstall(text).changes, [], command);
    assert.throws(
      () =>
        planInstall(text, "settings.json", { ...request(), statusLine: true }),
      /already has a status line/,
      command,
    );
  }
  // A release binary named by an absolute path or on the PATH is one
  // install may have written.
  for (
    const command of [
      "/opt/sw/stall-watch statusline",
      "stall-watch statusline",
    ]
  ) {
    const text = JSON.stringify({ statusLine: { type: "command", command } });
    assert.equal(uninstall(text).changes.length, 1, command);
  }
});
