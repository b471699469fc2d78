/**
 * Builds small real-shaped transcripts line by line (the Claude Code
 * envelope, assistant messages one block per line, uuid-less metadata), so
 * tests can state exactly which turn stalls on which line.
 *
 * @module
 */

/** Appends transcript lines and remembers their 1-based numbers. */
export class TranscriptBuilder {
  readonly lines: string[] = [];
  #sessionId: string;
  #sidechain: boolean;
  #promptId: string | null = null;
  #turn = 0;
  #uuid = 0;
  #legacy: boolean;

  /**
   * @param sessionId Written on every entry.
   * @param options `sidechain` for a subagent file; `legacy` to omit promptId.
   */
  constructor(
    sessionId = "0d5e2c1a-7f4b-4c8e-9a31-5b6f0c2d8e17",
    options: { sidechain?: boolean; legacy?: boolean } = {},
  ) {
    this.#sessionId = sessionId;
    this.#sidechain = options.sidechain ?? false;
    this.#legacy = options.legacy ?? false;
  }

  /** The 1-based number of the line written last. */
  get lastLine(): number {
    return this.lines.length;
  }

  /** A human prompt; starts a new promptId. Returns its line. */
  prompt(text: string): number {
    this.#turn++;
    this.#promptId = this.#legacy ? null : `prompt-${this.#turn}`;
    return this.#entry("user", { message: { role: "user", content: text } });
  }

  /** One assistant line holding `blocks` (one API message per `messageId`). */
  assistant(messageId: string, blocks: unknown[]): number {
    return this.#entry("assistant", {
      message: {
        model: "claude-opus-4-5-20251101",
        id: messageId,
        type: "message",
        role: "assistant",
        content: blocks,
        stop_reason: null,
        usage: { input_tokens: 3, output_tokens: 40 },
      },
      requestId: `req_${messageId}`,
    });
  }

  /** An assistant line with one text block. */
  text(messageId: string, text: string): number {
    return this.assistant(messageId, [{ type: "text", text }]);
  }

  /** An assistant line with one tool_use block. */
  call(
    messageId: string,
    id: string,
    name: string,
    input: unknown = {},
  ): number {
    return this.assistant(messageId, [{ type: "tool_use", id, name, input }]);
  }

  /** A user line with one tool_result; `content` undefined omits the key. */
  result(
    id: string,
    content: unknown,
    extra: Record<string, unknown> = {},
  ): number {
    const block: Record<string, unknown> = {
      tool_use_id: id,
      type: "tool_result",
    };
    if (content !== undefined) block.content = content;
    return this.#entry("user", {
      message: { role: "user", content: [block] },
      toolUseResult: typeof content === "string"
        ? { stdout: content }
        : content ?? null,
      ...extra,
    });
  }

  /** The marker Claude Code writes when the user interrupts. */
  interrupt(): number {
    return this.#entry("user", {
      message: {
        role: "user",
        content: [{ type: "text", text: "[Request interrupted by user]" }],
      },
    });
  }

  /** A Stop hook feedback entry (a note, not a prompt). */
  stopHookFeedback(text: string): number {
    return this.#entry("user", {
      message: { role: "user", content: `Stop hook feedback:\n${text}` },
      isMeta: true,
    });
  }

  /** A compaction boundary and its summary. Returns the boundary's line. */
  compact(): number {
    this.#turn++;
    this.#promptId = this.#legacy ? null : `prompt-${this.#turn}`;
    const line = this.#entry("system", {
      subtype: "compact_boundary",
      content: "Conversation compacted",
    });
    this.#entry("user", {
      message: {
        role: "user",
        content:
          "This session is being continued from a previous conversation.",
      },
      isCompactSummary: true,
    });
    return line;
  }

  /**
   * The `stop_hook_summary` line Claude Code writes once Stop hooks ran
   * (shape of real 2.1.87): a record that the turn ended.
   */
  stopSummary(): number {
    return this.#entry("system", {
      subtype: "stop_hook_summary",
      hookCount: 1,
      hookInfos: [{ command: "callback" }],
      hookErrors: [],
      preventedContinuation: false,
      stopReason: "",
      hasOutput: false,
      level: "suggestion",
    });
  }

  /**
   * What Claude Code writes when it resumes a session whose process died
   * in the middle of a turn: its `isMeta` prompt `Continue from where you
   * left off.` and a synthetic `No response requested.` (the shapes of
   * 2.1.x's resume code and real 2.1.332's synthetic entry). Returns the
   * prompt's line.
   */
  resumeAfterDeath(): number {
    const line = this.#entry("user", {
      message: {
        role: "user",
        content: [{ type: "text", text: "Continue from where you left off." }],
      },
      isMeta: true,
    });
    this.#entry("assistant", {
      message: {
        id: "8a3f0c2e-4b1d-4e7a-9c55-2f6d1b0e9a47",
        container: null,
        model: "<synthetic>",
        role: "assistant",
        stop_reason: "stop_sequence",
        stop_sequence: "",
        type: "message",
        usage: { input_tokens: 0, output_tokens: 0 },
        content: [{ type: "text", text: "No response requested." }],
      },
    });
    return line;
  }

  /** A uuid-less metadata line. */
  meta(type: string, body: Record<string, unknown> = {}): number {
    this.lines.push(
      JSON.stringify({ type, ...body, sessionId: this.#sessionId }),
    );
    return this.lastLine;
  }

  /** A raw line, written as is. */
  raw(text: string): number {
    this.lines.push(text);
    return this.lastLine;
  }

  /** The file's text: every line ended by `\n`. */
  toString(): string {
    return this.lines.map((l) => l + "\n").join("");
  }

  #entry(type: string, body: Record<string, unknown>): number {
    const entry: Record<string, unknown> = {
      parentUuid: this.#uuid === 0 ? null : `uuid-${this.#uuid}`,
      isSidechain: this.#sidechain,
      userType: "external",
      cwd: "/home/dev/projects/invoice-api",
      sessionId: this.#sessionId,
      // A legacy file comes from before promptId (2.1.196) and before
      // last_assistant_message (2.1.47).
      version: this.#legacy ? "2.1.30" : "2.1.231",
      gitBranch: "main",
      type,
      ...body,
      uuid: `uuid-${++this.#uuid}`,
      timestamp: "2026-03-14T09:12:03.516Z",
    };
    if (this.#promptId !== null) entry.promptId = this.#promptId;
    this.lines.push(JSON.stringify(entry));
    return this.lastLine;
  }
}
