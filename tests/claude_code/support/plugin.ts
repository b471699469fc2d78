/**
 * The plugin tier's kit (`plugin_test.ts`): stall-watch added to Claude
 * Code's throw-away config from a copy of the checkout's tracked files and
 * installed as a plugin, the way a user does; the `claude plugin` and
 * `stall-watch` commands run in the session's project; what Claude Code
 * recorded of the plugin's Stop hooks; and a stand-in release binary.
 *
 * @module
 */

import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import { HOOK_PERMISSION_FLAGS } from "../../../src/shared/permissions.ts";
import { lastUserText, type Script } from "./fake_api.ts";
import { type Applies, feedbackText } from "./scenario.ts";
import {
  type ClaudeSession,
  MAIN_TS,
  readJsonl,
  shellQuote,
  withClaudeSession,
} from "./session.ts";
import { EVENT_WAIT_MS } from "./patience.ts";

/** The checkout under test. */
const REPO = dirname(MAIN_TS);
/** The plugin's id in Claude Code's records: plugin@marketplace. */
export const PLUGIN_ID = "stall-watch@stall-watch";
/** The plugin's version, from its manifest. */
export const VERSION: string = JSON.parse(
  await Deno.readTextFile(join(REPO, ".claude-plugin", "plugin.json")),
).version;

/**
 * Where the plugin was seen to work. Older releases of the matrix fail it:
 * 2.0.76 and 2.1.47 reject the manifest ("Unrecognized key"), 2.1.90 to
 * 2.1.145 have no `claude plugin install --config` and ran none of its
 * nudges, 2.1.214 ran none of its hooks. The releases between 2.1.214 and
 * 2.1.332 were not bisected.
 */
export const PLUGIN: Applies = {
  since: "2.1.332",
  why: "the plugin was measured failing on 2.1.214 and older releases",
};

/** The executable of what `claudeTest` hands a scenario. */
export function executable(client: string | { path: string }): string {
  return typeof client === "string" ? client : client.path;
}

/** Copies the files git tracks, as they are in the working tree, to `to`. */
export async function copyCheckout(to: string): Promise<void> {
  const out = await new Deno.Command("git", {
    args: ["-C", REPO, "ls-files", "-z"],
    stdout: "piped",
  }).output();
  assert.ok(out.success, "git ls-files failed");
  const files = new TextDecoder().decode(out.stdout).split("\0")
    .filter((f) => f !== "");
  // The plugin's own files may be new in this working tree.
  for (const dir of [".claude-plugin", "hooks"]) {
    for await (const entry of Deno.readDir(join(REPO, dir))) {
      if (entry.isFile) files.push(`${dir}/${entry.name}`);
    }
  }
  for (const file of new Set(files)) {
    const from = join(REPO, file);
    try {
      if (!(await Deno.lstat(from)).isFile) continue;
    } catch {
      continue; // deleted in the working tree
    }
    await Deno.mkdir(dirname(join(to, file)), { recursive: true });
    await Deno.copyFile(from, join(to, file));
  }
}

/** What one `claude plugin ...` command printed. */
export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `program args` in the session's project with its environment. */
async function runIn(
  session: ClaudeSession,
  program: string,
  args: string[],
): Promise<CliResult> {
  const out = await new Deno.Command(program, {
    args,
    cwd: session.project,
    clearEnv: true,
    env: session.env,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    signal: AbortSignal.timeout(EVENT_WAIT_MS),
  }).output();
  return {
    code: out.code,
    stdout: new TextDecoder().decode(out.stdout),
    stderr: new TextDecoder().decode(out.stderr),
  };
}

/** `claude <args>` (the plugin commands). */
export function claudeCli(
  claude: string,
  session: ClaudeSession,
  args: string[],
): Promise<CliResult> {
  return runIn(session, claude, args);
}

/** The installed plugin a scenario works with. */
export interface Installed {
  /** The marketplace folder (the checkout copy). */
  checkout: string;
  /** `CLAUDE_PLUGIN_DATA` of the plugin. */
  data: string;
}

/**
 * A session with stall-watch added from a checkout copy and installed as
 * a plugin (user scope, `install` options in `installArgs`); `prepare`
 * may change the copy first (pin a release's checksums, say).
 */
export async function withPlugin(
  claude: string,
  script: Script,
  fn: (session: ClaudeSession, plugin: Installed) => Promise<void>,
  installArgs: string[] = [],
  prepare?: (checkout: string) => Promise<void>,
): Promise<void> {
  await withClaudeSession({ claude, script }, async (session) => {
    const checkout = join(session.root, "checkout");
    await copyCheckout(checkout);
    await prepare?.(checkout);
    const added = await claudeCli(claude, session, [
      "plugin",
      "marketplace",
      "add",
      checkout,
    ]);
    assert.equal(added.code, 0, added.stdout + added.stderr);
    const installed = await claudeCli(claude, session, [
      "plugin",
      "install",
      PLUGIN_ID,
      ...installArgs,
    ]);
    assert.equal(installed.code, 0, installed.stdout + installed.stderr);
    assert.match(
      installed.stdout,
      /Successfully installed plugin: stall-watch@stall-watch/,
    );
    const record = JSON.parse(
      await Deno.readTextFile(
        join(session.configDir, "plugins", "installed_plugins.json"),
      ),
    );
    assert.equal(record.plugins[PLUGIN_ID]?.[0]?.version, VERSION);
    // Claude Code makes the data folder when the plugin's hooks first run.
    const data = join(
      session.configDir,
      "plugins",
      "data",
      "stall-watch-stall-watch",
    );
    await fn(session, { checkout, data });
  });
}

/** Claude Code's record of the Stop hooks it ran in one transcript. */
export async function stopSummaries(
  transcript: string,
): Promise<{ command: string; errors: string[] }[]> {
  return (await readJsonl(transcript))
    .filter((e) => e.type === "system" && e.subtype === "stop_hook_summary")
    .map((e) => {
      const s = e as { hookInfos: { command: string }[]; hookErrors: string[] };
      assert.equal(s.hookInfos.length, 1, JSON.stringify(s.hookInfos));
      return { command: s.hookInfos[0]!.command, errors: s.hookErrors };
    });
}

/** The transcripts written since `before` (one per `-p` run). */
export async function newTranscripts(
  session: ClaudeSession,
  before: string[],
): Promise<string[]> {
  return (await session.transcripts()).filter((t) =>
    !before.includes(t) && !t.includes("/subagents/")
  );
}

/** The Stop command string of the plugin's hooks.json. */
export const STOP_COMMAND: string = JSON.parse(
  await Deno.readTextFile(join(REPO, "hooks", "hooks.json")),
).hooks.Stop[0].hooks[0].command;

/**
 * The command as Claude Code names it in a hook's error and the model's
 * feedback: with `${CLAUDE_PLUGIN_ROOT}` replaced by the plugin's folder
 * (`stop_hook_summary` keeps it as written).
 */
function shownCommand(plugin: Installed): string {
  return STOP_COMMAND.replaceAll("${CLAUDE_PLUGIN_ROOT}", plugin.checkout);
}

/** What Claude Code adds to the error text of a plugin's hook. */
const PLUGIN_NOTE =
  "\n\nThis hook comes from the stall-watch@stall-watch plugin.";

/**
 * Asserts one run was blocked once by the plugin and then answered:
 * the block's stderr reached the model as Stop hook feedback, whole.
 */
export async function assertBlockedOnceThenAnswered(
  session: ClaudeSession,
  plugin: Installed,
  transcript: string,
  firstRequest: number,
): Promise<string> {
  const command = shownCommand(plugin);
  const summaries = await stopSummaries(transcript);
  assert.deepEqual(summaries.map((s) => s.command), [
    STOP_COMMAND,
    STOP_COMMAND,
  ]);
  assert.equal(summaries[0]!.errors.length, 1);
  assert.deepEqual(summaries[1]!.errors, []);
  const block = summaries[0]!.errors[0]!;
  const lead = `[${command}]: `;
  assert.ok(block.startsWith(`${lead}stall_watch: 1 `), block);
  assert.ok(block.endsWith(PLUGIN_NOTE), block);
  const stderr = block.slice(lead.length, -PLUGIN_NOTE.length);
  assert.match(stderr, /^stall_watch recovery: /m);
  const requests = session.api.mainRequests().slice(firstRequest);
  assert.equal(requests.length, 4);
  assert.ok(
    lastUserText(requests[3]!).includes(feedbackText(command, stderr)),
    lastUserText(requests[3]!).slice(-2000),
  );
  return stderr;
}

/** The session id of a transcript (its file name). */
export function sessionOf(transcript: string): string {
  return transcript.slice(transcript.lastIndexOf("/") + 1, -".jsonl".length);
}

/** `stall-watch <args>` from source, with the release permissions. */
export function stallWatch(
  session: ClaudeSession,
  args: string[],
): Promise<CliResult> {
  return runIn(session, Deno.execPath(), [
    "run",
    "--quiet",
    ...HOOK_PERMISSION_FLAGS,
    MAIN_TS,
    ...args,
  ]);
}

/** A stand-in "release binary": records each run, then runs the source. */
export function standInBinary(marker: string): string {
  const deno = [
    Deno.execPath(),
    "run",
    "--quiet",
    "--no-config",
    ...HOOK_PERMISSION_FLAGS,
    MAIN_TS,
  ].map(shellQuote).join(" ");
  return [
    "#!/bin/sh",
    "# Test stand-in for the stall-watch release binary.",
    `[ "$1" = --version ] || printf '%s\\n' "$PWD" >> ${shellQuote(marker)}`,
    `exec ${deno} "$@"`,
    "",
  ].join("\n");
}
