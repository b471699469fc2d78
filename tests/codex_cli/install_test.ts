/**
 * `stall-watch install --codex` and `doctor --codex` against the real
 * Codex (its `app-server`, and `codex exec` without any bypass flag): the
 * hook is written into `.codex/hooks.json`, Codex trusts it, doctor sees
 * every state Codex reports, and a hook trusted this way is run by Codex
 * while an untrusted one is skipped without a word.
 */

import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { queue, text } from "./support/fake_responses.ts";
import type { CodexSession } from "./support/codex_session.ts";
import {
  CODEX_TIER_FLAGS,
  codexTest,
  stallWatch,
  trustProject,
} from "./support/tier.ts";

const TRUST_HOOKS = fileURLToPath(
  new URL("./support/trust_hooks.ts", import.meta.url),
);

function tier(name: string, fn: (session: CodexSession) => Promise<void>) {
  codexTest(name, {
    script: queue([text("ok"), text("ok"), text("ok")]),
    stopHook: false,
  }, fn);
}

function hooksFile(session: CodexSession): string {
  return `${session.project}/.codex/hooks.json`;
}

tier(
  "install --codex in a project Codex does not trust: the hook is written, install and doctor say Codex ignores it there",
  async (session) => {
    const install = await stallWatch(session, ["install", "--codex"]);
    assert.equal(install.code, 0, install.stderr);
    const hooks = JSON.parse(await Deno.readTextFile(hooksFile(session)));
    assert.match(hooks.hooks.Stop[0].hooks[0].command, / codex-stop$/);
    assert.match(
      install.stderr,
      /Codex reads \.codex\/hooks\.json only in a trusted project, and .* is not trusted/,
    );
    const doctor = await stallWatch(session, ["doctor", "--codex"]);
    assert.equal(doctor.code, 1);
    assert.match(
      doctor.stdout,
      /Codex ignores it: this project is not trusted/,
    );
  },
);

tier(
  "install --codex in a trusted project: Codex trusts the hook; doctor says so, then 'changed since it was trusted' after a hand edit; install trusts it again",
  async (session) => {
    await trustProject(session);
    const install = await stallWatch(session, ["install", "--codex"]);
    assert.equal(install.code, 0, install.stderr);
    assert.match(install.stdout, /Trusted in Codex: the Stop hook in \.codex/);
    const config = await Deno.readTextFile(`${session.codexHome}/config.toml`);
    assert.match(
      config,
      new RegExp(
        `\\[hooks\\.state\\."${
          hooksFile(session)
        }:stop:0:0"\\]\\ntrusted_hash = "sha256:[0-9a-f]{64}"`,
      ),
    );
    const doctor = await stallWatch(session, ["doctor", "--codex"]);
    assert.match(doctor.stdout, /ok {4}Codex: .*: trusted: Codex will run it/);
    assert.equal(doctor.code, 0, doctor.stdout);
    const again = await stallWatch(session, ["install", "--codex"]);
    assert.match(again.stdout, /\.codex\/hooks\.json: nothing to change/);
    const edited = (await Deno.readTextFile(hooksFile(session))).replace(
      '"timeout": 30',
      '"timeout": 31',
    );
    await Deno.writeTextFile(hooksFile(session), edited);
    const modified = await stallWatch(session, ["doctor", "--codex"]);
    assert.equal(modified.code, 1);
    assert.match(
      modified.stdout,
      /changed since it was trusted: Codex skips it/,
    );
    const retrust = await stallWatch(session, ["install", "--codex"]);
    assert.match(retrust.stdout, /Trusted in Codex/);
    assert.equal((await stallWatch(session, ["doctor", "--codex"])).code, 0);
    const uninstall = await stallWatch(session, ["uninstall", "--codex"]);
    assert.equal(uninstall.code, 0, uninstall.stderr);
    assert.deepEqual(JSON.parse(await Deno.readTextFile(hooksFile(session))), {
      hooks: {},
    });
  },
);

tier(
  "install --codex --user from home: the user's hooks.json, trusted, for every project",
  async (session) => {
    const install = await stallWatch(
      session,
      ["install", "--codex", "--user"],
      session.home,
    );
    assert.equal(install.code, 0, install.stderr);
    assert.match(install.stdout, /Trusted in Codex: the Stop hook in \.codex/);
    const doctor = await stallWatch(session, ["doctor", "--codex"]);
    assert.equal(doctor.code, 0, doctor.stdout);
    assert.match(doctor.stdout, /trusted: Codex will run it/);
  },
);

tier(
  "an untrusted hook is skipped without a word; trusted through codex app-server, codex exec runs it with no bypass flag",
  async (session) => {
    await trustProject(session);
    await Deno.mkdir(`${session.project}/.codex`);
    await Deno.writeTextFile(
      hooksFile(session),
      JSON.stringify({
        hooks: {
          Stop: [{
            hooks: [{
              type: "command",
              command: session.hookCommand,
              timeout: 60,
            }],
          }],
        },
      }),
    );
    const skipped = await session.runExec("say ok", { bypassHookTrust: false });
    assert.equal(skipped.code, 0, skipped.stderr);
    assert.deepEqual(await session.stopRuns(), []);
    assert.doesNotMatch(skipped.stdout + skipped.stderr, /hook/i);
    const trust = await session.run(Deno.execPath(), [
      "run",
      ...CODEX_TIER_FLAGS,
      TRUST_HOOKS,
      session.project,
      hooksFile(session),
    ]);
    assert.equal(trust.code, 0, trust.stderr);
    assert.deepEqual(JSON.parse(trust.stdout), {
      before: ["untrusted"],
      after: ["trusted"],
    });
    const ran = await session.runExec("say ok", { bypassHookTrust: false });
    assert.equal(ran.code, 0, ran.stderr);
    const [stop, ...more] = await session.stopRuns();
    assert.equal(more.length, 0);
    assert.equal(stop?.payload.hook_event_name, "Stop");
  },
);
