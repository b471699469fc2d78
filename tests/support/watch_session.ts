/**
 * A growing, real-shaped session transcript for the watchdog's tests: each
 * builder returns one line in the shape Claude Code 2.1.2xx writes (copied
 * from the fixtures: envelope, one content block per assistant line,
 * `toolUseResult`, `turn_duration`, metadata lines), and `append` adds lines
 * to the file the way Claude Code does, whole lines at a time.
 *
 * @module
 */

import { join } from "node:path";

const CWD = "/home/dev/projects/invoice-api";

/** One session's transcript file and the ids its lines share. */
export class SessionTranscript {
  /** The transcript file. */
  readonly path: string;
  readonly sessionId: string;
  /** The current turn's `promptId`. */
  promptId: string = crypto.randomUUID();
  /**
   * When the next entries were made (their `timestamp`); null: now. Lines
   * reach the file through Claude Code's write queue, so a test can write
   * them out of the order they were made in.
   */
  madeAt: Date | null = null;
  /** Whether entries carry `promptId` (2.1.47 wrote none). */
  stampsPromptId = true;
  #parent: string | null = null;
  #lines = 0;

  /**
   * @param dir Folder for the file.
   * @param sessionId The session (also the file name, as in `~/.claude/projects`).
   */
  constructor(dir: string, sessionId: string = crypto.randomUUID()) {
    this.sessionId = sessionId;
    this.path = join(dir, `${sessionId}.jsonl`);
  }

  /** Lines appended so far (the next line's number is this + 1). */
  get lineCount(): number {
    return this.#lines;
  }

  /** Appends whole lines to the file (created on first use). */
  async append(...lines: string[]): Promise<void> {
    await Deno.writeTextFile(this.path, lines.join(""), { append: true });
    this.#lines += lines.length;
  }

  /** A human prompt: starts a new turn with a fresh `promptId`. */
  prompt(text: string): string {
    this.promptId = crypto.randomUUID();
    return this.#entry("user", {
      message: { role: "user", content: text },
      permissionMode: "default",
    });
  }

  /** An assistant text block on its own line (split-line message). */
  text(text: string, messageId = newId("msg_")): string {
    return this.#assistant(messageId, { type: "text", text }, null);
  }

  /** An assistant `tool_use` block on its own line, ending its message. */
  toolUse(
    id: string,
    name: string,
    input: Record<string, unknown>,
    messageId = newId("msg_"),
  ): string {
    return this.#assistant(
      messageId,
      { type: "tool_use", id, name, input, caller: { type: "direct" } },
      "tool_use",
    );
  }

  /** A `tool_result` user line answering `toolUseId`. */
  result(
    toolUseId: string,
    content: string,
    toolUseResult: unknown = { stdout: content, stderr: "" },
  ): string {
    return this.#entry("user", {
      message: {
        role: "user",
        content: [{ tool_use_id: toolUseId, type: "tool_result", content }],
      },
      toolUseResult,
    });
  }

  /** The interrupt marker Claude Code writes when the user presses Esc. */
  interrupt(): string {
    return this.#entry("user", {
      message: {
        role: "user",
        content: [{ type: "text", text: "[Request interrupted by user]" }],
      },
    });
  }

  /** Claude Code's end-of-turn line. */
  turnDuration(durationMs = 12_695): string {
    return this.#entry("system", {
      subtype: "turn_duration",
      durationMs,
      isMeta: false,
    });
  }

  /** The line Claude Code writes after running the Stop hooks. */
  stopHookSummary(command: string): string {
    return this.#entry("system", {
      subtype: "stop_hook_summary",
      hookCount: 1,
      hookInfos: [{ command }],
      hookErrors: [],
      preventedContinuation: false,
      stopReason: "",
      hasOutput: true,
      level: "suggestion",
      isMeta: false,
    });
  }

  /** A blocking Stop hook's text, fed back to the model (not a human prompt). */
  stopHookFeedback(command: string, text: string): string {
    return this.#entry("user", {
      message: {
        role: "user",
        content: `Stop hook feedback:\n[${command}]: ${text}`,
      },
      isMeta: true,
    });
  }

  /** A metadata line (no uuid), as re-appended after turns. */
  snapshot(): string {
    const messageId = crypto.randomUUID();
    return JSON.stringify({
      type: "file-history-snapshot",
      messageId,
      snapshot: {
        messageId,
        trackedFileBackups: {},
        timestamp: new Date().toISOString(),
      },
      isSnapshotUpdate: false,
    }) + "\n";
  }

  /**
   * The `api-request` line Claude Code 2.1.332 writes when it sends a model
   * request (shape of `real/healthy_tool`, `params` cut).
   */
  apiRequest(querySource = "repl_main_thread"): string {
    return JSON.stringify({
      type: "api-request",
      sessionId: this.sessionId,
      id: crypto.randomUUID(),
      timestamp: new Date().toISOString(),
      version: "2.1.332",
      querySource,
      shapeHash:
        "8c6a10ec389411e05e204475fcb13d0bdff08ed72970fe4c63d3f513ec047819",
      params: "<elided>",
    }) + "\n";
  }

  /**
   * The synthetic assistant entry Claude Code writes when a model request
   * failed for good (HTTP 500 after its retries): not the model's answer.
   */
  apiError(text = "API Error: 500 Internal server error"): string {
    return this.#entry("assistant", {
      message: {
        id: crypto.randomUUID(),
        container: null,
        model: "<synthetic>",
        role: "assistant",
        stop_reason: "stop_sequence",
        stop_sequence: "",
        type: "message",
        usage: { input_tokens: 0, output_tokens: 0 },
        content: [{ type: "text", text }],
        context_management: null,
      },
      error: "server_error",
      isApiErrorMessage: true,
    });
  }

  /** An `attachment` line (not conversation, not a follow-up). */
  attachment(): string {
    return this.#entry("attachment", {
      attachment: { type: "todo_reminder", content: [], itemCount: 0 },
    });
  }

  #assistant(
    messageId: string,
    block: Record<string, unknown>,
    stopReason: string | null,
  ): string {
    return this.#entry("assistant", {
      message: {
        model: "claude-opus-4-5-20251101",
        id: messageId,
        type: "message",
        role: "assistant",
        content: [block],
        stop_reason: stopReason,
        stop_sequence: null,
        usage: { input_tokens: 7, output_tokens: 25, service_tier: "standard" },
      },
      requestId: newId("req_"),
    });
  }

  #entry(type: string, fields: Record<string, unknown>): string {
    const uuid = crypto.randomUUID();
    const line = JSON.stringify({
      parentUuid: this.#parent,
      isSidechain: false,
      userType: "external",
      cwd: CWD,
      sessionId: this.sessionId,
      version: "2.1.230",
      gitBranch: "fix/invoice-total",
      type,
      ...fields,
      uuid,
      timestamp: (this.madeAt ?? new Date()).toISOString(),
      ...(this.stampsPromptId ? { promptId: this.promptId } : {}),
    }) + "\n";
    this.#parent = uuid;
    return line;
  }
}

/** A fresh id in Claude Code's style (`toolu_...`, `msg_...`). */
export function newId(prefix: string): string {
  return prefix + crypto.randomUUID().replaceAll("-", "").slice(0, 24);
}

/** The PostToolUse payload Claude Code sends after `toolUseId` completed. */
export function postToolUsePayload(
  transcript: SessionTranscript,
  toolUseId: string,
  toolName: string,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    session_id: transcript.sessionId,
    transcript_path: transcript.path,
    cwd: CWD,
    permission_mode: "default",
    hook_event_name: "PostToolUse",
    tool_name: toolName,
    tool_input: { command: "npm test", description: "Run the tests" },
    tool_response: { stdout: "Tests  48 passed (48)", stderr: "" },
    tool_use_id: toolUseId,
    ...extra,
  };
}

/** Polls `check` every 20 ms until it holds; throws after `timeoutMs`. */
export async function waitUntil(
  check: () => boolean | Promise<boolean>,
  what: string,
  timeoutMs = 15_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) {
      throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
