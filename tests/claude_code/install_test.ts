/**
 * Real Claude Code picking up the hook that `stall-watch install` wrote into
 * the project's `.claude/settings.local.json`, with no `--settings`: the
 * registration as shipped is what blocks the stall and reaches the model.
 * The hook runs on a cold Deno cache with every registry pointed at a dead
 * loopback port: it must need nothing from the network, and the model must
 * read the report with no "Download ..." line before it.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { HOOK_PERMISSION_FLAGS } from "../../src/shared/permissions.ts";
import { lastUserText, queue, text, toolCall } from "./support/fake_api.ts";
import { factsOf } from "./support/release_facts.ts";
import { claudeTest, feedbackText, silence } from "./support/scenario.ts";
import { MAIN_TS, readJsonl, withClaudeSession } from "./support/session.ts";
import { EVENT_WAIT_MS } from "./support/patience.ts";

claudeTest(
  "registered by stall-watch install: picked up without --settings, blocks the silent turn once",
  async (client) => {
    const tool = "mcp__stub__empty";
    const answer = "Recovered after the installed hook's nudge.";
    await withClaudeSession({
      claude: client.path,
      script: queue([toolCall(tool), ...silence(client), text(answer)]),
    }, async (session) => {
      const offline = {
        DENO_DIR: join(session.root, "cold-deno-cache"),
        NPM_CONFIG_REGISTRY: "http://127.0.0.1:9/",
        JSR_URL: "http://127.0.0.1:9/",
      };
      const install = await new Deno.Command(Deno.execPath(), {
        args: ["run", "--quiet", ...HOOK_PERMISSION_FLAGS, MAIN_TS, "install"],
        cwd: session.project,
        clearEnv: true,
        env: { ...session.env, ...offline },
        stdin: "null",
        stdout: "piped",
        stderr: "piped",
        signal: AbortSignal.timeout(EVENT_WAIT_MS),
      }).output();
      const said = new TextDecoder().decode(install.stdout) +
        new TextDecoder().decode(install.stderr);
      assert.equal(install.code, 0, said);
      const settings = JSON.parse(
        await Deno.readTextFile(
          join(session.project, ".claude", "settings.local.json"),
        ),
      );
      const command: string = settings.hooks.Stop[0].hooks[0].command;
      assert.ok(command.includes(MAIN_TS), command);
      assert.match(command, / run --quiet /);

      const run = await session.runPrint(`use ${tool}`, {
        allowedTools: [tool],
        useSettings: false,
        env: offline,
      });
      assert.equal(run.code, 0, run.stderr);
      assert.equal(run.result?.result, answer);
      assert.equal(session.api.overruns, 0);
      // The hook ran on the cold cache (it filled it) ...
      assert.ok((await Deno.stat(offline.DENO_DIR)).isDirectory);
      // ... and the wrapper of --settings was not involved.
      assert.deepEqual(await session.hookRuns(), []);

      const requests = session.api.mainRequests();
      const silent = silence(client).length;
      assert.equal(requests.length, 2 + silent);
      const fed = lastUserText(requests[1 + silent]!);
      if (!factsOf(client.release).stopHookSummaryLines) {
        // No record of the hooks in the transcript: the request is it. The
        // block's stderr, and nothing before it, reached the model.
        assert.ok(
          fed.includes(`Stop hook feedback:\n[${command}]: stall_watch: 1 `),
          fed,
        );
        assert.match(fed, /^stall_watch recovery: /m);
        return;
      }
      // Claude Code's own record of the Stop hooks it ran, and what they said.
      const [main] = await session.transcripts();
      const summaries = (await readJsonl(main!)).filter((e) =>
        e.type === "system" && e.subtype === "stop_hook_summary"
      ) as { hookInfos: { command: string }[]; hookErrors: string[] }[];
      assert.equal(summaries.length, 2);
      assert.deepEqual(summaries.map((s) => s.hookInfos[0]?.command), [
        command,
        command,
      ]);
      assert.equal(summaries[0]!.hookErrors.length, 1);
      assert.deepEqual(summaries[1]!.hookErrors, []);
      const blockText = summaries[0]!.hookErrors[0]!;
      assert.ok(
        blockText.startsWith(`[${command}]: stall_watch: 1 `),
        blockText,
      );
      const stderr = blockText.slice(`[${command}]: `.length);
      assert.match(stderr, /^stall_watch recovery: /m);
      // The block's stderr, and nothing before it, reached the model.
      assert.ok(fed.includes(feedbackText(command, stderr)), fed);
    });
  },
);
