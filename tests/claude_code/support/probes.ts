/**
 * Probes: one short real-client scenario per client behaviour stall-watch
 * depends on, each answering "does this release do it?" with what was seen.
 * The bisect tool (`bisect.ts`) runs them over npm releases to find where a
 * behaviour starts; the matrix (`features_test.ts`) runs them on every
 * release of the run and checks the answers against the gates in
 * `src/claude_client/release.ts` and the tier's own facts.
 *
 * Each probe asserts nothing itself: a session that does not behave either
 * way (claude crashed, timed out, the script overran) is an error, never a
 * "no".
 *
 * @module
 */

import {
  empty,
  httpError,
  lastUserText,
  queue,
  type RecordedRequest,
  type Reply,
  text,
  toolCall,
} from "./fake_api.ts";
import type { ClientFeature } from "../../../src/claude_client/release.ts";
import { type ClaudeSession, withClaudeSession } from "./session.ts";
import type { TmuxPane } from "./tmux.ts";
import { EVENT_WAIT_MS } from "./patience.ts";

/** What a probe saw. */
export interface ProbeResult {
  /** The release shows the behaviour. */
  has: boolean;
  /** What was seen, in a few words (for the bisect log and the docs). */
  saw: string;
}

/** One probe: a name, what it tells, and how to run it. */
export interface Probe {
  /** The client feature it answers for (`claude_client/release.ts`). */
  name: ClientFeature;
  /** The behaviour, in words: "yes" means the release does this. */
  question: string;
  /** Needs tmux (an interactive session). */
  tmux?: boolean;
  run(claude: string): Promise<ProbeResult>;
}

/** Claude Code's hidden note when it retries an empty reply itself. */
export const OWN_RETRY_NOTE = "[Your previous response had no visible output.";

/** Claude Code's hidden note when it retries a lost tool call itself. */
export const LOST_CALL_NOTE = "The previous response failed to produce a " +
  "valid tool call.";

const TOOL = "mcp__stub__echo";

function fail(what: string, detail: string): never {
  throw new Error(`probe inconclusive: ${what}: ${detail.slice(0, 2000)}`);
}

/** Runs `prompt` with `replies` in a fresh session and hands it over. */
async function printed<T>(
  claude: string,
  replies: Reply[],
  prompt: string,
  tools: string[],
  look: (session: ClaudeSession, code: number | null) => Promise<T>,
  env: Record<string, string> = {},
): Promise<T> {
  let result: T | undefined;
  await withClaudeSession(
    { claude, script: queue(replies) },
    async (session) => {
      const run = await session.runPrint(prompt, {
        allowedTools: tools,
        env,
        timeoutMs: 120_000,
      });
      if (run.timedOut) fail(prompt, `claude timed out: ${run.stderr}`);
      result = await look(session, run.code);
    },
  );
  return result as T;
}

/** The main transcript's text. */
async function mainTranscript(session: ClaudeSession): Promise<string> {
  const [main] = await session.transcripts();
  return main ? await Deno.readTextFile(main) : "";
}

const lastAssistantMessage: Probe = {
  name: "last_assistant_message",
  question: "the Stop payload carries the final reply's text",
  run: (claude) =>
    printed(claude, [text("Probe answer.")], "say hi", [], async (session) => {
      const stop = (await session.hookRuns()).find((r) => r.event === "Stop");
      if (!stop) fail("last_assistant_message", "no Stop ran");
      const value = stop.payload.last_assistant_message;
      return {
        has: value === "Probe answer.",
        saw: "last_assistant_message" in stop.payload
          ? `last_assistant_message: ${JSON.stringify(value)}`
          : "no last_assistant_message key in the Stop payload",
      };
    }),
};

const emptyReplyRetry: Probe = {
  name: "empty_reply_retry",
  question:
    "an empty reply to a tool result is retried once with a hidden note before Stop fires",
  run: (claude) =>
    printed(
      claude,
      [toolCall(TOOL, { text: "forty-two" }), empty(), text("Answered.")],
      `use ${TOOL}`,
      [TOOL],
      async (session) => {
        const requests = session.api.mainRequests();
        const third = requests[2];
        const stops = (await session.hookRuns()).filter((r) =>
          r.event === "Stop"
        );
        if (!third) {
          return {
            has: false,
            saw:
              `${requests.length} requests; Stop after the first empty reply`,
          };
        }
        const retried = lastUserText(third).includes(OWN_RETRY_NOTE);
        if (!retried && stops.length === 0) fail("empty_reply_retry", "?");
        return {
          has: retried,
          saw: retried
            ? "third request carries the hidden note"
            : "third request is the Stop hook's nudge",
        };
      },
      // Only the Stop hook's block would cause a third request otherwise.
      { STALL_WATCH_DISABLED: "1" },
    ),
};

const emptyResultRewrite: Probe = {
  name: "empty_result_rewrite",
  question:
    "a blank MCP result reaches the model as '(<tool> completed with no output)'",
  run: (claude) =>
    printed(
      claude,
      [toolCall("mcp__stub__blank"), text("Answered.")],
      "use mcp__stub__blank",
      ["mcp__stub__blank"],
      (session) => {
        const second = session.api.mainRequests()[1];
        if (!second) fail("empty_result_rewrite", "no request after the call");
        const seen = lastUserText(second);
        const rewritten = seen.includes(
          "(mcp__stub__blank completed with no output)",
        );
        return Promise.resolve({
          has: rewritten,
          saw: rewritten
            ? "the model saw '(mcp__stub__blank completed with no output)'"
            : `the model saw ${JSON.stringify(seen.slice(0, 80))}`,
        });
      },
    ),
};

const blankReplyUnwritten: Probe = {
  name: "blank_reply_unwritten",
  question:
    "a whitespace-only reply leaves no assistant entry '(no content)' behind",
  run: (claude) =>
    printed(
      claude,
      [
        toolCall(TOOL, { text: "forty-two" }),
        { kind: "message", blocks: [{ type: "text", text: "\n\n  \n" }] },
        { kind: "message", blocks: [{ type: "text", text: "\n\n  \n" }] },
        text("Answered."),
      ],
      `use ${TOOL}`,
      [TOOL],
      async (session) => {
        const file = await mainTranscript(session);
        const placeholder = file.split("\n").some((line) =>
          line.includes('"type":"assistant"') &&
          line.includes('"text":"(no content)"')
        );
        return {
          has: !placeholder,
          saw: placeholder
            ? "an assistant entry with the text '(no content)'"
            : "no '(no content)' entry",
        };
      },
      { STALL_WATCH_DISABLED: "1" },
    ),
};

const lostCallRetry: Probe = {
  name: "lost_call_retry",
  question:
    "a reply that stops for tool_use without a call is retried by Claude Code itself",
  run: (claude) =>
    printed(
      claude,
      [
        {
          kind: "message",
          blocks: [{ type: "text", text: "Let me call the tool." }],
          stopReason: "tool_use",
        },
        text("Answered."),
      ],
      `use ${TOOL}`,
      [TOOL],
      (session) => {
        const second = session.api.mainRequests()[1];
        const retried = second !== undefined &&
          lastUserText(second).includes(LOST_CALL_NOTE);
        return Promise.resolve({
          has: retried,
          saw: retried
            ? "second request carries 'The previous response failed to produce a valid tool call.'"
            : `${session.api.mainRequests().length} request(s), no retry note`,
        });
      },
      { STALL_WATCH_DISABLED: "1" },
    ),
};

const apiRequestLines: Probe = {
  name: "api_request_lines",
  question:
    "the transcript gets an `api-request` line when a model request starts",
  run: (claude) =>
    printed(
      claude,
      [toolCall(TOOL, { text: "forty-two" }), text("Answered.")],
      `use ${TOOL}`,
      [TOOL],
      async (session) => {
        const lines = (await mainTranscript(session)).split("\n");
        const marks = lines.filter((l) => l.includes('"type":"api-request"'));
        return {
          has: marks.length > 0,
          saw: `${marks.length} api-request line(s) in ${lines.length - 1}`,
        };
      },
      { STALL_WATCH_DISABLED: "1" },
    ),
};

const stopSkippedOnApiError: Probe = {
  name: "stop_skipped_on_api_error",
  question: "no Stop fires when the request after a tool result fails",
  run: (claude) =>
    printed(
      claude,
      [toolCall(TOOL, { text: "forty-two" }), httpError(500), httpError(500)],
      `use ${TOOL}`,
      [TOOL],
      async (session) => {
        const events = (await session.hookRuns()).map((r) => r.event);
        const stops = events.filter((e) => e === "Stop").length;
        return {
          has: stops === 0,
          saw: `${stops} Stop run(s) after the API error`,
        };
      },
      { STALL_WATCH_DISABLED: "1" },
    ),
};

/** A hook's output that ends the turn on purpose, as a policy hook would. */
export const STOP_CONTINUATION = JSON.stringify({
  continue: false,
  stopReason: "policy",
});

/**
 * Settings registering a hook that prints {@link STOP_CONTINUATION} under
 * `event` for every tool.
 */
export function stoppingHookSettings(
  event: "PreToolUse" | "PostToolUse",
): Record<string, unknown> {
  const hook = { type: "command", command: `echo '${STOP_CONTINUATION}'` };
  return { hooks: { [event]: [{ matcher: "*", hooks: [hook] }] } };
}

/** The event of each `hook_stopped_continuation` line of a transcript. */
function stoppedContinuations(file: string): string[] {
  const events: string[] = [];
  for (const line of file.split("\n")) {
    if (!line.includes('"hook_stopped_continuation"')) continue;
    const attachment = JSON.parse(line).attachment;
    if (attachment?.type === "hook_stopped_continuation") {
      events.push(String(attachment.hookEvent));
    }
  }
  return events;
}

const hookStoppedTrace: Probe = {
  name: "hook_stopped_trace",
  question:
    "a turn a PostToolUse or PreToolUse hook ends with `continue: false` leaves a `hook_stopped_continuation` line",
  run: async (claude) => {
    const seen: Record<string, string[]> = {};
    for (const event of ["PostToolUse", "PreToolUse"] as const) {
      await withClaudeSession(
        { claude, script: queue([toolCall(TOOL, { text: "x" })]) },
        async (session) => {
          await Deno.writeTextFile(
            session.settingsPath,
            JSON.stringify(stoppingHookSettings(event)),
          );
          const run = await session.runPrint(`use ${TOOL}`, {
            allowedTools: [TOOL],
            timeoutMs: 120_000,
          });
          if (run.timedOut) fail("hook_stopped_trace", run.stderr);
          // The turn must have ended at the hook: one request, no answer.
          const requests = session.api.mainRequests().length;
          if (requests !== 1) {
            fail("hook_stopped_trace", `${event}: ${requests} requests`);
          }
          seen[event] = stoppedContinuations(await mainTranscript(session));
        },
      );
    }
    const post = seen.PostToolUse ?? [];
    const pre = seen.PreToolUse ?? [];
    if ((post.length > 0) !== (pre.length > 0)) {
      fail("hook_stopped_trace", `PostToolUse ${post}, PreToolUse ${pre}`);
    }
    return {
      has: post.length > 0,
      saw: post.length > 0
        ? `hook_stopped_continuation lines: PostToolUse [${post}], PreToolUse [${pre}]`
        : "no hook_stopped_continuation line after either hook",
    };
  },
};

/** How Claude Code's result for a call cut short by a crash starts. */
export const INTERRUPTED_CALL_PREFIX = "[Tool call interrupted";

const interruptedCallResult: Probe = {
  name: "interrupted_call_result",
  question:
    "a call running when claude was killed gets a result when the session is resumed (--continue)",
  run: async (claude) => {
    let result: ProbeResult | undefined;
    const slow = "mcp__stub__slow";
    await withClaudeSession(
      {
        claude,
        script: queue([toolCall(slow, { seconds: 60 }), text("Resumed.")]),
      },
      async (session) => {
        let calledAt = 0;
        const crashed = await session.runPrint(`use ${slow}`, {
          allowedTools: [slow],
          timeoutMs: 120_000,
          // Killed (SIGKILL) 2 s after the call is on file: it is running.
          killWhen: async () => {
            if (calledAt === 0) {
              const file = await mainTranscript(session);
              if (file.includes(`"name":"${slow}"`)) calledAt = Date.now();
            }
            return calledAt > 0 && Date.now() - calledAt > 2_000;
          },
        });
        if (!crashed.timedOut) fail("interrupted_call_result", "not killed");
        const resumed = await session.runPrint("carry on", {
          allowedTools: [slow],
          args: ["--continue"],
          timeoutMs: 120_000,
        });
        if (resumed.timedOut) fail("interrupted_call_result", resumed.stderr);
        const file = await mainTranscript(session);
        const results = file.split("\n").filter((line) =>
          line.includes('"type":"user"') && line.includes('"tool_result"')
        );
        const seen = results.map((line) =>
          JSON.stringify(JSON.parse(line).message?.content?.[0]?.content)
        );
        result = {
          has: results.length > 0,
          saw: results.length > 0
            ? `a result on resume: ${seen[0]?.slice(0, 120)}`
            : "no result for the call after resume",
        };
      },
    );
    return result as ProbeResult;
  },
};

const statusLineRefresh: Probe = {
  name: "status_line_refresh",
  question:
    "a status line with refreshInterval runs again while a tool call runs",
  tmux: true,
  run: async (claude) => {
    let result: ProbeResult | undefined;
    const slow = "mcp__stub__slow";
    const seconds = 12;
    let calledAt = 0;
    const script = (_request: RecordedRequest, index: number): Reply => {
      if (index > 0) return text("Done with the tool.");
      calledAt = Date.now();
      return toolCall(slow, { seconds });
    };
    await withClaudeSession({ claude, script }, async (session) => {
      const runs = `${session.root}/status-runs`;
      await Deno.mkdir(runs);
      // Each run leaves a file named by the time it ran (ms).
      const command = `cat > /dev/null; : > '${runs}'/$(date +%s%3N)`;
      await Deno.writeTextFile(
        session.settingsPath,
        JSON.stringify({
          statusLine: { type: "command", command, refreshInterval: 2 },
        }),
      );
      const pane = await session.startInteractive({ allowedTools: [slow] });
      try {
        await pane.waitFor(PROMPT_LINE);
        await pane.settled();
        await pane.submit(`use ${slow}`);
        await pane.waitFor(/Done with the tool\./);
      } finally {
        await pane.close();
      }
      const times: number[] = [];
      for await (const entry of Deno.readDir(runs)) {
        times.push(Number(entry.name));
      }
      // Runs while the call ran, past the ones its start set off.
      const during = times.filter((t) =>
        t > calledAt + 3_000 && t < calledAt + (seconds - 1) * 1000
      );
      result = {
        has: during.length >= 2,
        saw: `${during.length} status line run(s) between 3 s and ${
          seconds - 1
        } s into a ${seconds} s call (${times.length} in all)`,
      };
    });
    return result as ProbeResult;
  },
};

const CONTEXT_MARKER = "CONTEXT-PROBE-5d1e";

/** A Stop hook that continues the turn once with `additionalContext`. */
function contextSettings(): Record<string, unknown> {
  const output = JSON.stringify({
    hookSpecificOutput: {
      hookEventName: "Stop",
      additionalContext: CONTEXT_MARKER,
    },
  });
  const command = `if grep -q '"stop_hook_active": *true'; then exit 0; fi; ` +
    `echo '${output}'`;
  return { hooks: { Stop: [{ hooks: [{ type: "command", command }] }] } };
}

const stopAdditionalContext: Probe = {
  name: "stop_additional_context",
  question:
    "a Stop hook's hookSpecificOutput.additionalContext continues the turn and reaches the model",
  run: async (claude) => {
    let result: ProbeResult | undefined;
    await withClaudeSession(
      { claude, script: queue([text("First."), text("Second.")]) },
      async (session) => {
        await Deno.writeTextFile(
          session.settingsPath,
          JSON.stringify(contextSettings()),
        );
        const run = await session.runPrint("say hi", { timeoutMs: 120_000 });
        if (run.timedOut) fail("stop_additional_context", run.stderr);
        const requests = session.api.mainRequests();
        const seen = requests.slice(1).some((r) =>
          JSON.stringify(r.body?.messages ?? []).includes(CONTEXT_MARKER)
        );
        result = {
          has: seen,
          saw: seen
            ? "the next request carried the additional context"
            : `${requests.length} request(s); the turn ended on the first answer`,
        };
      },
    );
    return result as ProbeResult;
  },
};

const WAKE_MARKER = "WAKE-PROBE-7f3a";

/**
 * The settings of the asyncRewake probe: a hook that waits until the turn
 * is over (the probe creates `doneFile` once the answer is on screen; at
 * most 20 s), then exits 2. Waiting for the event, not a fixed time, keeps
 * the probe from racing a slow turn.
 */
function rewakeSettings(doneFile: string): Record<string, unknown> {
  const hook = {
    type: "command",
    // Bounded by the clock, not by turns of the loop: where hooks run in
    // line (before 2.1.15) the turn waits for this one, and on a loaded
    // machine 100 turns of `sleep 0.2` took far longer than 20 s. It leaves
    // `<doneFile>.exited` behind as it exits, for the probe to wait on.
    command: `end=$(($(date +%s) + 20)); ` +
      `while [ ! -e '${doneFile}' ] && [ "$(date +%s)" -lt "$end" ]; do ` +
      `sleep 0.2; done; sleep 1; echo ${WAKE_MARKER} >&2; ` +
      `: > '${doneFile}.exited'; exit 2`,
    timeout: 60,
    async: true,
    asyncRewake: true,
  };
  return { hooks: { PostToolUse: [{ matcher: "*", hooks: [hook] }] } };
}

/** Waits until `path` exists; throws after `timeoutMs`. */
async function waitForPath(path: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      await Deno.lstat(path);
      return;
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
    }
    if (Date.now() > deadline) throw new Error(`${path} never appeared`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * How long after the waking hook exited its wake-up may take to reach the
 * API. Releases with asyncRewake send it within a second; a release without
 * never does, so the probe's "no" costs this once.
 */
const WAKE_GRACE_MS = 30_000;

const asyncRewake: Probe = {
  name: "async_rewake",
  question:
    "an asyncRewake PostToolUse hook's exit 2 wakes the idle session and reaches the model",
  tmux: true,
  run: async (claude) => {
    let result: ProbeResult | undefined;
    const replies: Reply[] = [toolCall(TOOL, { text: "forty-two" })];
    let answered = -1;
    const script = (_request: RecordedRequest, index: number): Reply => {
      if (index === 0) return replies[0] as Reply;
      if (answered < 0) {
        answered = index;
        return text("Done with the tool.");
      }
      return text("Woken.");
    };
    await withClaudeSession({ claude, script }, async (session) => {
      const doneFile = `${session.root}/turn-done`;
      await Deno.writeTextFile(
        session.settingsPath,
        JSON.stringify(rewakeSettings(doneFile)),
      );
      const pane = await startProbeSession(session);
      try {
        await pane.submit(`use ${TOOL}`);
        // Where the hook runs in line, the answer waits for it (20 s).
        await pane.waitFor(/Done with the tool\./);
        await Deno.writeTextFile(doneFile, "");
        // The hook exits a second after the turn ended; its wake-up, where
        // there is one, follows.
        await waitForPath(`${doneFile}.exited`, EVENT_WAIT_MS);
        const deadline = Date.now() + WAKE_GRACE_MS;
        let woken: RecordedRequest | undefined;
        while (Date.now() < deadline && !woken) {
          woken = session.api.mainRequests().slice(answered + 1).find((r) =>
            lastUserText(r).includes(WAKE_MARKER) ||
            JSON.stringify(r.body?.messages ?? []).includes(WAKE_MARKER)
          );
          await new Promise((r) => setTimeout(r, 250));
        }
        const early = session.api.mainRequests().slice(0, answered + 1)
          .some((r) =>
            JSON.stringify(r.body?.messages ?? []).includes(WAKE_MARKER)
          );
        if (!woken && Deno.env.get("STALL_WATCH_PROBE_SCREEN") === "1") {
          console.error(await pane.screen());
        }
        result = {
          has: woken !== undefined,
          saw: woken
            ? "a new request after the turn ended carried the hook's stderr"
            : early
            ? "the hook ran synchronously: its stderr came with the tool result"
            : "no request carried the hook's stderr within 30 s of its exit",
        };
      } finally {
        await pane.close();
      }
    });
    return result as ProbeResult;
  },
};

const asyncHooks: Probe = {
  name: "async_hooks",
  question:
    "a hook with `async: true` runs in the background: the turn goes on without waiting for it",
  run: async (claude) => {
    let result: ProbeResult | undefined;
    let doneFile = "";
    const script = (_request: RecordedRequest, index: number): Reply => {
      if (index === 0) return toolCall(TOOL, { text: "forty-two" });
      // The request answering the result: let a background hook finish.
      Deno.writeTextFileSync(doneFile, "");
      return text("Done with the tool.");
    };
    await withClaudeSession({ claude, script }, async (session) => {
      doneFile = `${session.root}/turn-done`;
      await Deno.writeTextFile(
        session.settingsPath,
        JSON.stringify(rewakeSettings(doneFile)),
      );
      const run = await session.runPrint(`use ${TOOL}`, {
        allowedTools: [TOOL],
        timeoutMs: 120_000,
      });
      if (run.timedOut) fail("async_hooks", run.stderr);
      const answer = session.api.mainRequests()[1];
      if (!answer) fail("async_hooks", "no request after the tool call");
      const waited = JSON.stringify(answer.body?.messages ?? []).includes(
        WAKE_MARKER,
      );
      result = {
        has: !waited,
        saw: waited
          ? "the request answering the result waited for the hook and carried its stderr"
          : "the request answering the result went out while the hook still ran",
      };
    });
    return result as ProbeResult;
  },
};

/** The probe subagent's task, by which its requests are told apart. */
const PROBE_SUBAGENT_TASK = "PROBE-SUBAGENT: report, then note it.";

/** The probe subagent's report, written before its last call. */
const PROBE_REPORT = "PROBE-REPORT: the echo tool works.";

const subagentLastText: Probe = {
  name: "subagent_last_text",
  question:
    "a subagent that ends with no text after its last call hands its parent the text it wrote before that call",
  run: async (claude) => {
    // The subagent writes its report with a call, then ends silent (an
    // empty reply, twice where Claude Code retries one itself).
    const sub = [
      toolCall(TOOL, { text: "noted" }, PROBE_REPORT),
      empty(),
      empty(),
    ];
    let subIndex = 0;
    let mainIndex = 0;
    const script = (request: RecordedRequest): Reply => {
      if (!isParentRequest(request)) {
        return sub[subIndex++] ?? text("overrun");
      }
      const tools = Array.isArray(request.body?.tools)
        ? request.body.tools
        : [];
      const agentTool =
        tools.some((t) => (t as { name?: unknown })?.name === "Agent")
          ? "Agent"
          : "Task";
      return [
        toolCall(agentTool, {
          description: "probe",
          prompt: PROBE_SUBAGENT_TASK,
          subagent_type: "general-purpose",
          run_in_background: false,
        }, "Delegating."),
        text("Main: done."),
      ][mainIndex++] ?? text("overrun");
    };
    let result: ProbeResult | undefined;
    await withClaudeSession({ claude, script }, async (session) => {
      const run = await session.runPrint("delegate the probe", {
        allowedTools: ["Agent", "Task", TOOL],
        env: { STALL_WATCH_DISABLED: "1" },
        timeoutMs: 120_000,
      });
      if (run.timedOut) fail("subagent_last_text", run.stderr);
      const after = session.api.mainRequests().filter(isParentRequest)[1];
      if (!after) {
        fail("subagent_last_text", "no parent request after the subagent");
      }
      const handed = lastUserText(after);
      const has = handed.includes(PROBE_REPORT);
      result = {
        has,
        saw: has
          ? "the parent's result carries the report"
          : `the parent's result lacks the report: ${
            JSON.stringify(handed.slice(0, 120))
          }`,
      };
    });
    return result as ProbeResult;
  },
};

/** A request of the parent conversation: its first message is not the subagent's task. */
function isParentRequest(request: RecordedRequest): boolean {
  const messages = request.body?.messages;
  const first = Array.isArray(messages) ? messages[0] : undefined;
  return !JSON.stringify(first ?? "").includes(PROBE_SUBAGENT_TASK);
}

/** The input line: `❯ ` since 2.1, `> ` in 2.0. */
export const PROMPT_LINE = /^[❯>]\s/m;

/** An interactive session ready for a prompt. */
async function startProbeSession(session: ClaudeSession): Promise<TmuxPane> {
  const pane = await session.startInteractive({ allowedTools: [TOOL] });
  await pane.waitFor(PROMPT_LINE);
  return pane;
}

/** Every probe, by name. */
export const PROBES: readonly Probe[] = [
  lastAssistantMessage,
  emptyReplyRetry,
  emptyResultRewrite,
  blankReplyUnwritten,
  lostCallRetry,
  apiRequestLines,
  stopSkippedOnApiError,
  stopAdditionalContext,
  asyncHooks,
  asyncRewake,
  hookStoppedTrace,
  interruptedCallResult,
  statusLineRefresh,
  subagentLastText,
];
