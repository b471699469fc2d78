/**
 * The handler stall-watch registers, and recognising its own handlers in
 * settings written by older versions or by hand.
 */

import assert from "node:assert/strict";
import {
  buildHandler,
  knownPathsOf,
  parseHandlerCommand,
  selfInvocation,
  stallWatchArgs,
} from "../../src/install/hook_command.ts";
import { shellQuote } from "../../src/shared/shell_quote.ts";
import { HOOK_PERMISSION_FLAGS } from "../../src/shared/permissions.ts";

const compiled = selfInvocation(
  "/opt/tools/stall-watch",
  "file:///opt/tools/deno-compile-stall-watch/main.ts",
  "posix",
);

function argsOf(
  handler: Record<string, unknown>,
  known: string[] = [],
): string[] | null {
  const parsed = parseHandlerCommand(handler);
  return parsed && stallWatchArgs(parsed, known);
}

Deno.test("selfInvocation() uses the compiled binary itself", () => {
  assert.deepEqual(compiled, {
    program: "/opt/tools/stall-watch",
    args: [],
    fromSource: false,
  });
  assert.deepEqual(knownPathsOf(compiled), ["/opt/tools/stall-watch"]);
});

Deno.test("selfInvocation() from source runs main.ts quietly with the release flags, not bare deno", () => {
  const source = selfInvocation(
    "/home/me/.deno/bin/deno",
    "file:///home/me/src/stall%20watch/main.ts",
    "posix",
  );
  assert.deepEqual(source, {
    program: "/home/me/.deno/bin/deno",
    args: [
      "run",
      "--quiet",
      ...HOOK_PERMISSION_FLAGS,
      "/home/me/src/stall watch/main.ts",
    ],
    fromSource: true,
  });
  assert.deepEqual(knownPathsOf(source), ["/home/me/src/stall watch/main.ts"]);
});

Deno.test("selfInvocation() on Windows writes forward slashes", () => {
  assert.equal(
    selfInvocation(
      "C:\\Users\\Me\\bin\\stall-watch.exe",
      "file:///C:/x/main.ts",
      "windows",
    ).program,
    "C:/Users/Me/bin/stall-watch.exe",
  );
  const source = selfInvocation(
    "C:\\Users\\Me\\.deno\\bin\\deno.exe",
    "file:///C:/Users/Me/src/stall-watch/main.ts",
    "windows",
  );
  assert.equal(source.program, "C:/Users/Me/.deno/bin/deno.exe");
  assert.equal(source.args.at(-1), "C:/Users/Me/src/stall-watch/main.ts");
});

Deno.test("buildHandler() on POSIX starts in the project root with an explicit timeout", () => {
  assert.deepEqual(
    buildHandler("Stop", compiled, { timeout: 30, platform: "posix" }),
    {
      type: "command",
      command: 'cd -- "$CLAUDE_PROJECT_DIR" || exit 1; /opt/tools/stall-watch',
      timeout: 30,
    },
  );
});

Deno.test("buildHandler() quotes paths the shell would split or expand", () => {
  const odd = { ...compiled, program: "/Users/me/My Tools/it's/stall-watch" };
  const handler = buildHandler("SubagentStop", odd, {
    timeout: 45,
    platform: "posix",
  });
  assert.equal(
    handler.command,
    `cd -- "$CLAUDE_PROJECT_DIR" || exit 1; '/Users/me/My Tools/it'\\''s/stall-watch'`,
  );
  assert.deepEqual(parseHandlerCommand(handler)?.words, [odd.program]);
  assert.equal(shellQuote("$HOME/x"), "'$HOME/x'");
});

Deno.test("buildHandler() makes the watch handler async with asyncRewake", () => {
  assert.deepEqual(
    buildHandler("PostToolUse", compiled, { timeout: 660, platform: "posix" }),
    {
      type: "command",
      command:
        'cd -- "$CLAUDE_PROJECT_DIR" || exit 1; /opt/tools/stall-watch watch',
      timeout: 660,
      async: true,
      asyncRewake: true,
    },
  );
});

Deno.test("buildHandler() on Windows uses exec form (no shell)", () => {
  const windows = selfInvocation(
    "D:\\tools\\stall-watch.exe",
    "file:///D:/x/main.ts",
    "windows",
  );
  assert.deepEqual(
    buildHandler("PostToolUse", windows, { timeout: 660, platform: "windows" }),
    {
      type: "command",
      command: "D:/tools/stall-watch.exe",
      args: ["watch"],
      timeout: 660,
      async: true,
      asyncRewake: true,
    },
  );
});

Deno.test("parseHandlerCommand() skips the cd into the project and unquotes words", () => {
  assert.deepEqual(
    parseHandlerCommand({
      command: `cd "\${CLAUDE_PROJECT_DIR}" && "/a b/stall-watch" watch`,
    }),
    {
      form: "shell",
      words: ["/a b/stall-watch", "watch"],
      startsInProjectDir: true,
      alone: true,
    },
  );
  assert.deepEqual(
    parseHandlerCommand({ command: "/x/stall-watch" })?.startsInProjectDir,
    false,
  );
  assert.equal(parseHandlerCommand({ command: `"unclosed` }), null);
  assert.equal(parseHandlerCommand({ args: [] }), null);
});

Deno.test("stallWatchArgs() recognises stall-watch by name, target-suffixed name or .exe", () => {
  for (
    const command of [
      "/usr/local/bin/stall-watch",
      'cd "$CLAUDE_PROJECT_DIR" && ./bin/stall-watch-x86_64-unknown-linux-gnu',
      "C:/tools/Stall-Watch.exe",
      '"$CLAUDE_PROJECT_DIR"/.claude/bin/stall_watch',
    ]
  ) {
    assert.deepEqual(argsOf({ command }), [], command);
  }
  assert.deepEqual(
    argsOf({ command: "C:/tools/stall-watch.exe", args: ["watch"] }),
    ["watch"],
  );
});

Deno.test("stallWatchArgs() recognises deno run of this main.ts or of a stall-watch checkout", () => {
  const flags = HOOK_PERMISSION_FLAGS.join(" ");
  assert.deepEqual(
    argsOf({ command: `/bin/deno run ${flags} /work/main/main.ts watch` }, [
      "/work/main/main.ts",
    ]),
    ["watch"],
  );
  assert.deepEqual(
    argsOf({ command: `deno run ${flags} /src/stall-watch/main.ts` }),
    [],
  );
  assert.deepEqual(
    argsOf({ command: `/opt/deno run ${flags} /work/main/main.ts watch` }),
    ["watch"],
    "what install wrote from any checkout before --quiet, seen from the compiled binary",
  );
  assert.deepEqual(
    argsOf({
      command: `/opt/deno run --quiet ${flags} /work/main/main.ts watch`,
    }),
    ["watch"],
    "what install writes from any checkout, seen from the compiled binary",
  );
  assert.equal(
    argsOf({ command: "deno run -A /work/main/main.ts" }),
    null,
    "another program's main.ts is not ours",
  );
});

Deno.test("stallWatchArgs() leaves other tools alone", () => {
  for (
    const command of [
      "notify-send done",
      "cat .claude/stall-watch.jsonc",
      "/usr/bin/deno run -A /x/stall-watch.ts",
      "python3 ~/hooks/stop.py",
    ]
  ) {
    assert.equal(argsOf({ command }), null, command);
  }
});
