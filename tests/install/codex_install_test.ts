/**
 * `install --codex`, `uninstall --codex` and `doctor --codex` in process,
 * against a stand-in `codex app-server` (`tests/support/fake_codex.ts`) or
 * none: the hook written into `.codex/hooks.json` without disturbing the
 * file, trusted through the server, what is said when Codex cannot be
 * asked, and every trust state doctor reports. The real Codex does the
 * same in `tests/codex_cli/install_test.ts`.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { main } from "../../src/cli.ts";
import {
  buildCodexHandler,
  CODEX_STOP_COMMAND,
  findOwnCodexHandlers,
  planCodexInstall,
  planCodexUninstall,
} from "../../src/install/codex_registration.ts";
import {
  isUnavailable,
  withCodexAppServer,
} from "../../src/install/codex_app_server.ts";
import { codexChecks, type CodexFacts } from "../../src/doctor/doctor_codex.ts";
import { type FakeIO, fakeIO } from "../support/fake_io.ts";
import { installFakeCodex } from "../support/fake_codex.ts";
import { tempProject } from "../support/temp_project.ts";
import { MAIN_TS, runStallWatch } from "../support/hook_process.ts";
import { EARLIER_PERMISSION_FLAGS } from "../../src/shared/permissions.ts";
import { onWindows, skipWhere } from "../support/platform.ts";

const BIN = "/usr/local/bin/stall-watch";
const INVOCATION = { program: BIN, args: [], fromSource: false };
const HANDLER = {
  type: "command",
  command: `${BIN} ${CODEX_STOP_COMMAND}`,
  timeout: 30,
};
const POSIX = onWindows("the stand-in codex is a shell script");

/** A project with a HOME, a CODEX_HOME and (optionally) the fake codex. */
async function setUp(withCodex: boolean) {
  const project = await tempProject();
  const home = join(project.dir, "home");
  const codexHome = join(home, ".codex");
  const bin = join(project.dir, "bin");
  const proj = join(project.dir, "proj");
  for (const dir of [codexHome, bin, proj]) {
    await Deno.mkdir(dir, { recursive: true });
  }
  if (withCodex) await installFakeCodex(bin);
  const env = {
    HOME: home,
    CODEX_HOME: codexHome,
    PATH: `${bin}:/usr/bin:/bin`,
  };
  return { project, home, codexHome, proj, env };
}

function io(cwd: string, env: Record<string, string>): FakeIO {
  return { ...fakeIO({ cwd, env }), execPath: BIN };
}

const out = (fake: FakeIO) => fake.stdout.join("");
const err = (fake: FakeIO) => fake.stderr.join("");

Deno.test("the Codex handler: the program alone with codex-stop, no cd to $CLAUDE_PROJECT_DIR", () => {
  assert.deepEqual(
    buildCodexHandler(INVOCATION, { timeout: 30, platform: "posix" }),
    HANDLER,
  );
  const fromSource = {
    program: "/usr/bin/deno",
    args: ["run", "--quiet", "--allow-read", "/opt/sw/main.ts"],
    fromSource: true,
  };
  const handler = buildCodexHandler(fromSource, {
    timeout: 30,
    platform: "posix",
  });
  assert.equal(
    handler.command,
    "/usr/bin/deno run --quiet --allow-read /opt/sw/main.ts codex-stop",
  );
  assert.equal(
    findOwnCodexHandlers({ hooks: { Stop: [{ hooks: [handler] }] } }, [
      "/opt/sw/main.ts",
    ]).length,
    1,
  );
});

Deno.test("planCodexInstall keeps every other hook and key, adds once, updates in place, drops duplicates", () => {
  const other = { type: "command", command: "notify-send done", timeout: 5 };
  const text = JSON.stringify(
    {
      hooks: {
        Stop: [{ hooks: [other] }],
        PreToolUse: [{ matcher: "*", hooks: [other] }],
      },
      note: "kept",
    },
    null,
    2,
  ) + "\n";
  const request = {
    invocation: INVOCATION,
    platform: "posix" as const,
    knownPaths: [BIN],
    timeout: null,
  };
  const first = planCodexInstall(text, "hooks.json", request);
  assert.deepEqual(first.changes, [
    `Stop: added ${BIN} codex-stop`,
  ]);
  const parsed = JSON.parse(first.text);
  assert.equal(parsed.note, "kept");
  assert.deepEqual(parsed.hooks.PreToolUse, [{ matcher: "*", hooks: [other] }]);
  assert.deepEqual(parsed.hooks.Stop, [{ hooks: [other] }, {
    hooks: [HANDLER],
  }]);
  // Idempotent.
  assert.deepEqual(planCodexInstall(first.text, "hooks.json", request), {
    text: first.text,
    changes: [],
  });
  // A new timeout updates in place; a duplicate goes.
  const doubled = JSON.stringify({
    hooks: { Stop: [{ hooks: [HANDLER] }, { hooks: [{ ...HANDLER }] }] },
  });
  const updated = planCodexInstall(doubled, "hooks.json", {
    ...request,
    timeout: 45,
  });
  assert.deepEqual(updated.changes, [
    `Stop: updated timeout 30 -> 45 of ${BIN} codex-stop`,
    `Stop: removed duplicate ${BIN} codex-stop`,
  ]);
  // The Claude Code hook (no subcommand) is not the Codex one.
  const claude = JSON.stringify({
    hooks: { Stop: [{ hooks: [{ type: "command", command: BIN }] }] },
  });
  assert.equal(planCodexInstall(claude, "h", request).changes.length, 1);
  assert.deepEqual(planCodexUninstall(claude, "h", [BIN]).changes, []);
  // Uninstall removes it and what it empties, nothing else.
  const removed = planCodexUninstall(first.text, "hooks.json", [BIN]);
  assert.deepEqual(JSON.parse(removed.text).hooks.Stop, [{ hooks: [other] }]);
});

Deno.test("planCodexInstall refuses a file that is not strict JSON or shaped wrong", () => {
  const request = {
    invocation: INVOCATION,
    platform: "posix" as const,
    knownPaths: [BIN],
    timeout: null,
  };
  assert.throws(
    () => planCodexInstall("{ hooks: }", "hooks.json", request),
    /hooks\.json/,
  );
  assert.throws(
    () => planCodexInstall('{"hooks": {"Stop": {}}}', "hooks.json", request),
    /fix it by hand/,
  );
});

Deno.test({
  ...skipWhere(
    "install --codex writes .codex/hooks.json and trusts the hook through codex app-server; again changes nothing",
    POSIX,
  ),
  fn: async () => {
    const t = await setUp(true);
    await using _ = t.project;
    const env = { ...t.env, FAKE_CODEX_PROJECT: "trusted" };
    const fake = io(t.proj, env);
    assert.equal(await main(["install", "--codex"], fake), 0, err(fake));
    const file = join(t.proj, ".codex", "hooks.json");
    assert.deepEqual(JSON.parse(await Deno.readTextFile(file)), {
      hooks: { Stop: [{ hooks: [HANDLER] }] },
    });
    assert.match(out(fake), /Trusted in Codex: the Stop hook in \.codex/);
    assert.equal(err(fake), "");
    const trust = JSON.parse(
      await Deno.readTextFile(join(t.codexHome, "fake-trust.json")),
    );
    assert.deepEqual(Object.keys(trust), [`${file}:stop:0:0`]);
    const again = io(t.proj, env);
    assert.equal(await main(["install", "--codex"], again), 0);
    assert.match(out(again), /nothing to change/);
    // doctor --codex: trusted.
    // (BIN is no file here: doctor says so, and the hook is trusted.)
    const doctor = io(t.proj, env);
    await main(["doctor", "--codex"], doctor);
    assert.match(out(doctor), /ok {4}Codex: .*: trusted: Codex will run it/);
  },
});

Deno.test({
  ...skipWhere(
    "install --codex in a project Codex does not trust: the hook is written, and the warning says Codex ignores it until the project is trusted",
    POSIX,
  ),
  fn: async () => {
    const t = await setUp(true);
    await using _ = t.project;
    const fake = io(t.proj, t.env);
    assert.equal(await main(["install", "--codex"], fake), 0);
    assert.match(
      err(fake),
      /only in a trusted project, and .* is not trusted: trust the project/,
    );
    const doctor = io(t.proj, t.env);
    assert.equal(await main(["doctor", "--codex"], doctor), 1);
    assert.match(out(doctor), /Codex ignores it: this project is not trusted/);
  },
});

Deno.test({
  ...skipWhere(
    "doctor --codex: an untrusted hook and one changed since it was trusted both fail, with the fix",
    POSIX,
  ),
  fn: async () => {
    const t = await setUp(true);
    await using _ = t.project;
    const env = { ...t.env, FAKE_CODEX_PROJECT: "trusted" };
    const dir = join(t.proj, ".codex");
    await Deno.mkdir(dir);
    await Deno.writeTextFile(
      join(dir, "hooks.json"),
      JSON.stringify({ hooks: { Stop: [{ hooks: [HANDLER] }] } }),
    );
    const untrusted = io(t.proj, env);
    assert.equal(await main(["doctor", "--codex"], untrusted), 1);
    assert.match(out(untrusted), /not trusted: Codex skips it without a word/);
    assert.match(out(untrusted), /stall-watch install --codex" again/);
    assert.equal(await main(["install", "--codex"], io(t.proj, env)), 0);
    await Deno.writeTextFile(
      join(dir, "hooks.json"),
      JSON.stringify({
        hooks: { Stop: [{ hooks: [{ ...HANDLER, timeout: 9 }] }] },
      }),
    );
    const modified = io(t.proj, env);
    assert.equal(await main(["doctor", "--codex"], modified), 1);
    assert.match(out(modified), /changed since it was trusted/);
  },
});

Deno.test("install --codex without codex on the PATH writes the hook and says exactly how to trust it", async () => {
  const t = await setUp(false);
  await using _ = t.project;
  const fake = io(t.proj, t.env);
  assert.equal(await main(["install", "--codex"], fake), 0);
  assert.ok(await Deno.stat(join(t.proj, ".codex", "hooks.json")));
  assert.match(
    err(fake),
    /codex is not on the PATH: the hook in \.codex.hooks\.json is not trusted yet, and Codex skips an untrusted hook without a word; to trust it, open codex in .*, type \/hooks and trust the stall-watch Stop hook/,
  );
  const doctor = io(t.proj, t.env);
  await main(["doctor", "--codex"], doctor);
  assert.match(
    out(doctor),
    /warn {2}Codex: .*: cannot ask Codex whether it will run it \(codex is not on the PATH\)/,
  );
});

Deno.test("install --codex --user writes $CODEX_HOME/hooks.json only from the folder that holds it", async () => {
  const t = await setUp(false);
  await using _ = t.project;
  const elsewhere = io(t.proj, t.env);
  await assert.rejects(
    () =>
      main(["install", "--codex", "--user"], elsewhere).then((code) => {
        if (code !== 0) throw new Error(err(elsewhere));
      }),
    /may only write inside .*proj.\.codex; run it from .*home: cd -- .* && stall-watch install --codex --user/,
  );
  const fromHome = io(t.home, t.env);
  assert.equal(await main(["install", "--codex", "--user"], fromHome), 0);
  assert.ok(await Deno.stat(join(t.codexHome, "hooks.json")));
  const uninstall = io(t.home, t.env);
  assert.equal(await main(["uninstall", "--codex", "--user"], uninstall), 0);
  assert.deepEqual(
    JSON.parse(await Deno.readTextFile(join(t.codexHome, "hooks.json"))),
    { hooks: {} },
  );
});

Deno.test("install --codex --dry-run prints the diff and writes nothing", async () => {
  const t = await setUp(false);
  await using _ = t.project;
  const fake = io(t.proj, t.env);
  assert.equal(await main(["install", "--codex", "--dry-run"], fake), 0);
  assert.match(out(fake), /\+.*codex-stop/);
  assert.equal(await Deno.stat(join(t.proj, ".codex")).catch(() => null), null);
});

Deno.test("--codex with Claude Code's options, or --user alone, is a usage error", async () => {
  for (
    const args of [
      ["install", "--codex", "--watch"],
      ["install", "--codex", "--scope", "user"],
      ["install", "--user"],
      ["uninstall", "--user"],
    ]
  ) {
    const fake = io("/", {});
    assert.equal(await main(args, fake), 64, args.join(" "));
  }
});

Deno.test("codex-stop without a rollout (--ephemeral): exit 0, one line saying nothing could be judged, nothing written", async () => {
  await using project = await tempProject();
  const fake = {
    ...io(project.dir, {}),
    readStdin: () =>
      Promise.resolve(
        '{"hook_event_name":"Stop","session_id":"s","turn_id":"t","transcript_path":null,"last_assistant_message":null}',
      ),
  };
  assert.equal(await main(["codex-stop"], fake), 0);
  assert.equal(out(fake), "");
  assert.match(
    err(fake),
    /^stall_watch: Codex wrote no rollout for this session \(transcript_path is null: codex exec --ephemeral\).*; stop allowed\n$/,
  );
  assert.deepEqual([...Deno.readDirSync(project.dir)], []);
});

Deno.test({
  ...skipWhere(
    "the app-server client: an error answer, a line that is not JSON and silence past the deadline are each one clear error",
    POSIX,
  ),
  fn: async () => {
    const t = await setUp(true);
    await using _ = t.project;
    for (
      const [mode, pattern] of [
        ["error", /codex app-server: fake failure$/],
        ["garbage", /not JSON/],
        ["silent", /did not answer within 1 s/],
      ] as const
    ) {
      await assert.rejects(
        () =>
          withCodexAppServer(
            {
              cwd: t.proj,
              env: { ...t.env, FAKE_CODEX_MODE: mode },
              timeoutMs: mode === "silent" ? 1_000 : 30_000,
            },
            "0.0.0",
            (client) => client.request("hooks/list", { cwds: [] }),
          ),
        pattern,
        mode,
      );
    }
    const absent = await withCodexAppServer(
      {
        cwd: t.proj,
        env: { PATH: "/nonexistent" },
        timeoutMs: 1_000,
      },
      "0.0.0",
      () => Promise.resolve(1),
    );
    assert.ok(isUnavailable(absent));
    assert.equal(absent.unavailable, "absent");
  },
});

Deno.test("doctor's Codex checks: nothing registered is silent unless asked, a broken file fails", () => {
  const facts: CodexFacts = {
    cwd: "/p",
    files: [],
    listing: null,
    trust: new Map(),
    required: false,
  };
  assert.deepEqual(codexChecks(facts), []);
  assert.equal(codexChecks({ ...facts, required: true })[0]?.status, "fail");
  const broken = codexChecks({
    ...facts,
    files: [{
      scope: "project",
      path: "/p/.codex/hooks.json",
      display: ".codex/hooks.json",
      exists: true,
      error: "not JSON",
      commands: [],
      missingPrograms: [],
    }],
  });
  assert.equal(broken[0]?.status, "fail");
});

Deno.test("under an earlier release's permission flags (writes to .claude only), install --codex refuses in one line and writes nothing", async () => {
  await using project = await tempProject();
  const [earlier] = EARLIER_PERMISSION_FLAGS;
  const install = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--quiet", ...earlier!, MAIN_TS, "install", "--codex"],
    cwd: project.dir,
    clearEnv: true,
    env: { HOME: project.dir, PATH: Deno.env.get("PATH") ?? "" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stderr = new TextDecoder().decode(install.stderr);
  assert.equal(install.code, 1, stderr);
  assert.match(
    stderr,
    /^stall-watch: Cannot install for Codex: this stall-watch may not write .*\.codex \(its permissions allow \.claude only\)/,
  );
  assert.equal(stderr.trim().split("\n").length, 1);
  assert.equal(
    await Deno.stat(join(project.dir, ".codex")).catch(() => null),
    null,
  );
});

Deno.test("under the release permission flags install --codex writes .codex/hooks.json (no codex on the PATH: it says how to trust it), and nothing outside .codex", async () => {
  await using project = await tempProject();
  const proj = join(project.dir, "proj");
  await Deno.mkdir(proj);
  const install = await runStallWatch({
    cwd: proj,
    args: ["install", "--codex"],
    env: { HOME: project.dir, PATH: "/nonexistent" },
  });
  assert.equal(install.code, 0, install.stderr);
  assert.match(install.stderr + install.stdout, /\/hooks/);
  const hooks = JSON.parse(
    await Deno.readTextFile(join(proj, ".codex", "hooks.json")),
  );
  assert.match(hooks.hooks.Stop[0].hooks[0].command, / codex-stop$/);
  assert.deepEqual([...Deno.readDirSync(proj)].map((e) => e.name), [
    ".codex",
  ]);
});

Deno.test("doctor without --codex adds the Codex lines only where a Codex hooks.json registers stall-watch", async () => {
  const t = await setUp(false);
  await using _ = t.project;
  const before = io(t.proj, t.env);
  await main(["doctor"], before);
  assert.doesNotMatch(out(before), /Codex:/);
  assert.equal(await main(["install", "--codex"], io(t.proj, t.env)), 0);
  const after = io(t.proj, t.env);
  await main(["doctor"], after);
  assert.match(out(after), /ok {4}Codex: the Stop hook in \.codex.hooks\.json/);
  assert.match(out(after), /cannot ask Codex whether it will run it/);
});
