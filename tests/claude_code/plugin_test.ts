/**
 * Real Claude Code with stall-watch installed as a plugin, the way a user
 * installs it: `claude plugin marketplace add <checkout>` and
 * `claude plugin install stall-watch@stall-watch` in the throw-away
 * CLAUDE_CONFIG_DIR, no `--settings`. The checkout is a copy of the files
 * git tracks (as a clone of the repository holds them). The hooks run
 * through hooks/launch.sh: on Deno (no binary is fetched: the data folder
 * is empty and the marketplace is a folder), and in the last scenario on a
 * stand-in "release binary" the SessionStart hook fetched from a fake
 * release on 127.0.0.1.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { TARGETS } from "../../.github/scripts/compile.ts";
import {
  archiveCommand,
  archiveName,
  sha256File,
} from "../../.github/scripts/package.ts";
import {
  empty,
  httpError,
  lastUserText,
  queue,
  type RecordedRequest,
  type Reply,
  text,
  toolCall,
} from "./support/fake_api.ts";
import { claudeTest } from "./support/scenario.ts";
import { waitForFile } from "../support/plugin_scripts.ts";
import {
  assertBlockedOnceThenAnswered,
  claudeCli,
  copyCheckout,
  executable,
  newTranscripts,
  PLUGIN,
  PLUGIN_ID,
  sessionOf,
  stallWatch,
  standInBinary,
  STOP_COMMAND,
  stopSummaries,
  VERSION,
  withPlugin,
} from "./support/plugin.ts";
import { readJsonl, withClaudeSession } from "./support/session.ts";

claudeTest(
  "claude plugin validate --strict passes on the marketplace and on the plugin",
  async (client) => {
    const claude = executable(client);
    await withClaudeSession(
      { claude, script: queue([]) },
      async (session) => {
        const checkout = join(session.root, "checkout");
        await copyCheckout(checkout);
        for (
          const [target, type] of [
            [checkout, "marketplace"],
            [join(checkout, ".claude-plugin", "plugin.json"), "plugin"],
          ] as const
        ) {
          const out = await claudeCli(claude, session, [
            "plugin",
            "validate",
            target,
            "--strict",
            "--json",
          ]);
          const report = JSON.parse(out.stdout);
          assert.equal(out.code, 0, out.stdout);
          assert.equal(report.success, true);
          assert.equal(report.manifest.type, type);
          assert.deepEqual(report.manifest.errors, []);
          assert.deepEqual(report.manifest.warnings, []);
          // What the validator sees the plugin provide.
          assert.deepEqual(
            report.provides.hooks.map((h: { event: string }) => h.event).sort(),
            [
              "PostToolUse",
              "PostToolUseFailure",
              "SessionStart",
              "Stop",
              "SubagentStop",
            ],
          );
        }
      },
    );
  },
  { applies: PLUGIN },
);

claudeTest(
  "doctor and install read the records claude plugin install wrote: the plugin is seen, a second registration refused",
  async (client) => {
    const claude = executable(client);
    await withPlugin(claude, queue([]), async (session) => {
      const doctor = await stallWatch(session, ["doctor", "--json"]);
      const report = JSON.parse(doctor.stdout);
      const texts = report.checks.map((c: { text: string }) => c.text);
      assert.ok(
        texts.includes(
          `runs as the Claude Code plugin ${PLUGIN_ID} ${VERSION} (user scope)`,
        ),
        doctor.stdout,
      );
      assert.ok(
        texts.some((t: string) =>
          t.startsWith("the plugin runs its source with ")
        ),
        doctor.stdout,
      );
      assert.equal(doctor.code, 0, doctor.stdout);
      const install = await stallWatch(session, ["install"]);
      assert.equal(install.code, 1);
      assert.match(
        install.stderr,
        /^stall-watch: Refusing to register stall-watch in \.claude\/settings\.local\.json: it already runs here as the Claude Code plugin stall-watch@stall-watch /,
      );
      // Disabled for this project (claude plugin disable), install goes ahead.
      const disabled = await claudeCli(claude, session, [
        "plugin",
        "disable",
        PLUGIN_ID,
        "--scope",
        "local",
      ]);
      assert.equal(disabled.code, 0, disabled.stdout + disabled.stderr);
      assert.equal((await stallWatch(session, ["install"])).code, 0);
      const after = JSON.parse(
        (await stallWatch(session, ["doctor", "--json"])).stdout,
      );
      assert.ok(
        after.checks.some((c: { text: string }) =>
          c.text ===
            `the Claude Code plugin ${PLUGIN_ID} ${VERSION} (user scope) is installed but not enabled here (local settings)`
        ),
        JSON.stringify(after.checks),
      );
    });
  },
  { applies: PLUGIN },
);

claudeTest(
  "installed as a plugin: a stalled turn is blocked once and answered, on the Deno path",
  async (client) => {
    const claude = executable(client);
    const tool = "mcp__stub__empty";
    const answer = "Recovered after the plugin's nudge.";
    await withPlugin(
      claude,
      queue([toolCall(tool), empty(), empty(), text(answer)]),
      async (session, plugin) => {
        const run = await session.runPrint(`use ${tool}`, {
          allowedTools: [tool],
          useSettings: false,
        });
        assert.equal(run.code, 0, run.stderr);
        assert.equal(run.result?.result, answer);
        assert.equal(session.api.overruns, 0);
        const [transcript] = await newTranscripts(session, []);
        await assertBlockedOnceThenAnswered(session, plugin, transcript!, 0);
        // The state is in the project's .claude, the data folder has no binary.
        const state = join(session.project, ".claude", "stall_watch");
        assert.ok(
          (await Deno.stat(join(state, `${sessionOf(transcript!)}.json`)))
            .isFile,
        );
        const data = [];
        for await (const e of Deno.readDir(plugin.data)) data.push(e.name);
        assert.ok(!data.includes("bin"), data.join(", "));
        // A folder marketplace has no GitHub release to fetch.
        assert.match(
          await Deno.readTextFile(join(plugin.data, "fetch-status")),
          /no release source/,
        );
      },
    );
  },
  { applies: PLUGIN },
);

claudeTest(
  "installed as a plugin: a healthy turn is allowed silently",
  async (client) => {
    const claude = executable(client);
    const answer = "Hello from a healthy turn.";
    await withPlugin(claude, queue([text(answer)]), async (session) => {
      const run = await session.runPrint("say hello", { useSettings: false });
      assert.equal(run.code, 0, run.stderr);
      assert.equal(run.result?.result, answer);
      const [transcript] = await newTranscripts(session, []);
      assert.deepEqual(await stopSummaries(transcript!), [
        { command: STOP_COMMAND, errors: [] },
      ]);
      assert.equal(session.api.mainRequests().length, 1);
      assert.doesNotMatch(
        lastUserText(session.api.mainRequests()[0]!),
        /Stop hook feedback/,
      );
      assert.ok(
        !run.stdout.includes("stall-watch:"),
        "the launcher said something",
      );
    });
  },
  { applies: PLUGIN },
);

claudeTest(
  "installed as a plugin: after the model cd-s into a sub-folder, the state is still in the project's .claude",
  async (client) => {
    const claude = executable(client);
    const answer = "Done in the sub-folder.";
    await withPlugin(
      claude,
      queue([
        toolCall("Bash", {
          command: "mkdir -p sub && cd sub",
          description: "Enter sub",
        }),
        empty(),
        empty(),
        text(answer),
      ]),
      async (session, plugin) => {
        const run = await session.runPrint("work in sub", {
          allowedTools: ["Bash"],
          useSettings: false,
        });
        assert.equal(run.code, 0, run.stderr);
        assert.equal(run.result?.result, answer);
        const [transcript] = await newTranscripts(session, []);
        // The session really moved: entries after the cd carry the new cwd.
        const cwds = (await readJsonl(transcript!))
          .map((e) => e.cwd).filter((c) => typeof c === "string");
        assert.equal(cwds.at(-1), join(session.project, "sub"));
        await assertBlockedOnceThenAnswered(session, plugin, transcript!, 0);
        const state = join(session.project, ".claude", "stall_watch");
        assert.ok(
          (await Deno.stat(join(state, `${sessionOf(transcript!)}.json`)))
            .isFile,
        );
        await assert.rejects(
          Deno.lstat(join(session.project, "sub", ".claude")),
          Deno.errors.NotFound,
        );
      },
    );
  },
  { applies: PLUGIN },
);

claudeTest(
  "claude plugin uninstall: no stall-watch hook runs afterwards, its data folder is gone",
  async (client) => {
    const claude = executable(client);
    const tool = "mcp__stub__empty";
    await withPlugin(
      claude,
      queue([text("First."), toolCall(tool), empty(), empty()]),
      async (session, plugin) => {
        // Installed with the watchdog on: its watchers run too.
        const first = await session.runPrint("say something", {
          useSettings: false,
        });
        assert.equal(first.code, 0, first.stderr);
        assert.ok((await Deno.stat(plugin.data)).isDirectory);
        const removed = await claudeCli(claude, session, [
          "plugin",
          "uninstall",
          PLUGIN_ID,
        ]);
        assert.equal(removed.code, 0, removed.stdout + removed.stderr);
        await assert.rejects(Deno.lstat(plugin.data), Deno.errors.NotFound);
        const before = await session.transcripts();
        const run = await session.runPrint(`use ${tool}`, {
          allowedTools: [tool],
          useSettings: false,
        });
        assert.equal(run.code, 0, run.stderr);
        // The silent turn ends unnudged: no Stop hook ran.
        assert.equal(session.api.mainRequests().length, 4);
        assert.equal(session.api.overruns, 0);
        const [transcript] = await newTranscripts(session, before);
        assert.deepEqual(await stopSummaries(transcript!), []);
        await assert.rejects(
          Deno.lstat(
            join(
              session.project,
              ".claude",
              "stall_watch",
              `${sessionOf(transcript!)}.json`,
            ),
          ),
          Deno.errors.NotFound,
        );
        // And no launcher of this plugin is still running.
        const ps = await new Deno.Command("ps", {
          args: ["-eo", "args="],
          stdout: "piped",
        }).output();
        const running = new TextDecoder().decode(ps.stdout).split("\n")
          .filter((line) => line.includes(plugin.checkout));
        assert.deepEqual(running, []);
      },
      ["--config", "watchdog=true"],
    );
  },
  { applies: PLUGIN },
);

claudeTest(
  "the watchdog option: an interactive session left idle by an API error after a tool result is woken, and the model carries on",
  async (client) => {
    const claude = executable(client);
    const tool = "mcp__stub__echo";
    const answer = "Carried on after the plugin's watchdog.";
    let woken = false;
    const script = (request: RecordedRequest, index: number): Reply => {
      if (index === 0) return toolCall(tool, { text: "42" });
      woken ||= /stall_watch/.test(lastUserText(request));
      // Until the wake-up every request fails, and Claude Code gives up.
      return woken ? text(answer) : httpError(500);
    };
    await withPlugin(claude, script, async (session) => {
      // No hooks but the plugin's (the tier's --settings file registers none).
      await Deno.writeTextFile(session.settingsPath, "{}");
      Object.assign(session.env, {
        CLAUDE_CODE_MAX_RETRIES: "0",
        STALL_WATCH_IDLE_SECONDS: "2",
        STALL_WATCH_WATCH_MAX_SECONDS: "40",
      });
      const pane = await session.startInteractive({
        allowedTools: [tool],
        args: ["--permission-mode", "default"],
      });
      try {
        await pane.waitFor(/^❯/m);
        await pane.type(`use ${tool}`);
        await pane.keys("Enter");
        await pane.waitFor(/API Error: 500/);
        await pane.waitFor(new RegExp(answer), 40_000);
      } finally {
        await pane.close();
      }
      const requests = session.api.mainRequests();
      assert.deepEqual(requests.map((r) => r.reply?.kind), [
        "message",
        "http_error",
        "message",
      ]);
      const wake = lastUserText(requests.at(-1)!);
      assert.match(wake, /stall_watch: 1 missing follow-up/);
      assert.match(wake, /failed with an API error, not the tool/);
    }, ["--config", "watchdog=true"]);
  },
  { tmux: true, applies: PLUGIN },
);

claudeTest(
  "the SessionStart hook fetches the release binary from a fake release on 127.0.0.1, and the next session's stops run it",
  async (client) => {
    const claude = executable(client);
    const tool = "mcp__stub__empty";
    const answer = "Recovered, on the release binary.";
    const target = TARGETS.find((t) => t.triple === Deno.build.target);
    assert.ok(target, `no release target for ${Deno.build.target}`);
    // The release, packed as `deno task package` packs it, and its
    // checksum pinned in the plugin as the release pins it.
    let marker = "";
    let bytes = new Uint8Array(0);
    const pinRelease = async (checkout: string) => {
      const build = join(checkout, "..", "release");
      await Deno.mkdir(build);
      marker = join(checkout, "..", "binary-runs");
      const binary = join(build, target.binary);
      await Deno.writeTextFile(binary, standInBinary(marker), {
        mode: 0o755,
      });
      const archive = join(build, archiveName(target));
      const [program, ...args] = archiveCommand(target, binary, archive);
      assert.ok((await new Deno.Command(program!, { args }).output()).success);
      bytes = await Deno.readFile(archive);
      await Deno.writeTextFile(
        join(checkout, "hooks", "release.sha256"),
        `${await sha256File(archive)}  v${VERSION}/${archiveName(target)}\n`,
        { append: true },
      );
    };
    await withPlugin(
      claude,
      queue([
        text("Warming up."),
        toolCall(tool),
        empty(),
        empty(),
        text(answer),
      ]),
      async (session, plugin) => {
        const asked: string[] = [];
        const server = Deno.serve(
          { hostname: "127.0.0.1", port: 0, onListen: () => {} },
          (request) => {
            const path = new URL(request.url).pathname;
            asked.push(path);
            if (path === `/v${VERSION}/${archiveName(target)}`) {
              return new Response(bytes);
            }
            return new Response("Not Found", { status: 404 });
          },
        );
        try {
          const env = {
            STALL_WATCH_PLUGIN_RELEASES:
              `http://127.0.0.1:${server.addr.port}/v${VERSION}`,
          };
          const warm = await session.runPrint("warm up", {
            useSettings: false,
            env,
          });
          assert.equal(warm.code, 0, warm.stderr);
          const status = await waitForFile(
            join(plugin.data, "fetch-status"),
            "the background fetch",
            120_000,
          );
          assert.equal(status.trim(), `${VERSION} ${target.triple} ok`);
          assert.deepEqual(asked, [`/v${VERSION}/${archiveName(target)}`]);
          // The warm-up's own Stop ran on Deno or, when the fetch was done
          // by then, on the binary: count from here.
          const binaryRuns = async () =>
            (await Deno.readTextFile(marker).catch(() => "")).split("\n")
              .filter((l) => l !== "");
          const earlier = (await binaryRuns()).length;
          const before = await session.transcripts();
          const first = session.api.mainRequests().length;
          const run = await session.runPrint(`use ${tool}`, {
            allowedTools: [tool],
            useSettings: false,
            env,
          });
          assert.equal(run.code, 0, run.stderr);
          assert.equal(run.result?.result, answer);
          const [transcript] = await newTranscripts(session, before);
          await assertBlockedOnceThenAnswered(
            session,
            plugin,
            transcript!,
            first,
          );
          // Both stops of that session ran the binary, in the project root.
          assert.deepEqual((await binaryRuns()).slice(earlier), [
            session.project,
            session.project,
          ]);
          assert.equal(asked.length, 1, "fetched again");
        } finally {
          await server.shutdown();
        }
      },
      [],
      pinRelease,
    );
  },
  { applies: PLUGIN },
);
