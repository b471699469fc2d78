/**
 * Generates one session transcript: a long history of turns up to a byte
 * budget (tool calls, parallel results out of order, interrupts, compaction,
 * Stop hook feedback, task notifications, local commands, metadata), then a
 * small final turn whose shape is `healthy` or `stalled`.
 *
 * @module
 */

import type { Block, EntryWriter } from "./entries.ts";
import { PROMPTS, REPLIES, THOUGHTS } from "./payloads.ts";
import type { Pools } from "./payloads.ts";
import type { Rng } from "./prng.ts";
import { makeToolCall, TOOL_WEIGHTS } from "./tools.ts";
import type { ToolCall, ToolKind } from "./tools.ts";

/** How the final turn ends. */
export type Tail = "healthy" | "stalled";

/** What to generate. */
export interface SessionSpec {
  /** Total size to aim for, in bytes. */
  readonly size: number;
  /** Shape of the final turn. */
  readonly tail: Tail;
  /** Whether history may launch background subagents. */
  readonly allowAgents: boolean;
  /** Fraction of the file (from the start) written as an older version. */
  readonly legacyFraction: number;
}

/** What was generated. */
export interface SessionResult {
  /** Id of the unanswered `Read` of a stalled tail. */
  readonly pendingToolUseId?: string;
  /** Ids of the background subagents launched in history. */
  readonly agentIds: readonly string[];
  /** Size in bytes of the final turn (from its human prompt to the end). */
  readonly finalTurnBytes: number;
}

type StepEnd = "answered" | "interrupted" | "killed";

/** Bytes of the final turn besides its read, used to plan the history. */
const FINAL_OVERHEAD = 16_000;
/** Bytes of the final turn written after its read is sized. */
const FINAL_TAIL_BYTES = 6_500;
/** Largest read of the final turn, so it stays small whatever the history. */
const MAX_FINAL_READ = 120_000;
const MB = 1 << 20;
const REJECTED =
  "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). STOP what you are doing and wait for the user to tell you how to proceed.";

/** Writes one session's entries through an {@linkcode EntryWriter}. */
export class SessionGenerator {
  #w: EntryWriter;
  #rng: Rng;
  #pools: Pools;
  #cwd: string;
  #spec: SessionSpec;
  #historyEnd = 0;
  #nextCompactAt = 0;
  #pendingAgents: string[] = [];
  #agentIds: string[] = [];

  /** Prepares a generator; nothing is written until {@linkcode run}. */
  constructor(
    w: EntryWriter,
    rng: Rng,
    options: { pools: Pools; cwd: string; spec: SessionSpec },
  ) {
    this.#w = w;
    this.#rng = rng;
    this.#pools = options.pools;
    this.#cwd = options.cwd;
    this.#spec = options.spec;
  }

  /** Writes the whole session and returns what the final turn holds. */
  run(): SessionResult {
    const rng = this.#rng;
    const size = this.#spec.size;
    const plannedRead = Math.max(
      600,
      Math.min(rng.int(2_000, 60_000), Math.floor(size / 16)),
    );
    this.#historyEnd = size - 2 * plannedRead - FINAL_OVERHEAD;
    this.#scheduleCompaction();
    this.#w.meta("permission-mode", {
      permissionMode: "default",
      sessionId: this.#w.sessionId,
    });
    while (this.#bytes() < this.#historyEnd) this.#historyTurn();
    const before = this.#bytes();
    const pendingToolUseId = this.#finalTurn();
    const result = {
      agentIds: this.#agentIds,
      finalTurnBytes: this.#bytes() - before,
    };
    return pendingToolUseId ? { ...result, pendingToolUseId } : result;
  }

  #bytes(): number {
    return this.#w.out.bytes;
  }

  #scheduleCompaction(): void {
    const rng = this.#rng;
    const gap = Math.min(
      rng.int(2 * MB, 8 * MB),
      Math.floor(this.#spec.size * (0.3 + rng.float() * 0.2)),
    );
    this.#nextCompactAt = this.#bytes() + gap;
  }

  #historyTurn(): void {
    const rng = this.#rng;
    const w = this.#w;
    w.legacy = this.#bytes() < this.#spec.size * this.#spec.legacyFraction;
    w.tick(30_000, 1_800_000);
    if (this.#bytes() >= this.#nextCompactAt) this.#compact();
    if (this.#pendingAgents.length > 0 && rng.chance(0.5)) {
      this.#taskNotification();
    }
    if (rng.chance(0.03)) this.#localCommand();
    if (rng.chance(0.03)) this.#queued();
    this.#prompt();
    const steps = rng.chance(0.15) ? 0 : rng.int(1, rng.chance(0.2) ? 14 : 6);
    for (let i = 0; i < steps && this.#bytes() < this.#historyEnd; i++) {
      if (this.#toolStep(this.#maxBlob()) !== "answered") return;
    }
    this.#answer();
    if (rng.chance(0.05)) this.#stopHookFeedback();
    this.#endTurn();
  }

  /** Caps one step's payloads by the budget left and by 1/8 of the file. */
  #maxBlob(): number {
    const left = this.#historyEnd - this.#bytes();
    return Math.max(2_000, Math.min(left, Math.floor(this.#spec.size / 8)));
  }

  #prompt(extra: Record<string, unknown> = {}): string {
    const rng = this.#rng;
    const w = this.#w;
    w.newTurn();
    let text = rng.pick(PROMPTS);
    if (rng.chance(0.05)) {
      text += `\n\n\`\`\`\n${
        this.#pools.code.snippet(rng, rng.int(20, 120))
      }\n\`\`\``;
    }
    const content = rng.chance(0.2) ? [{ type: "text", text }] : text;
    const uuid = w.user(content, extra);
    w.meta("file-history-snapshot", {
      messageId: uuid,
      snapshot: { messageId: uuid, trackedFileBackups: {}, timestamp: w.now() },
      isSnapshotUpdate: false,
    });
    if (rng.chance(0.3)) this.#attachment();
    return text;
  }

  #attachment(): void {
    const rng = this.#rng;
    const attachment = rng.chance(0.5)
      ? {
        type: "edited_text_file",
        filename: `${this.#cwd}/src/classify.ts`,
        snippet: this.#pools.code.snippet(rng, 4),
      }
      : { type: "todo_reminder", content: [], itemCount: 0 };
    this.#w.conversation("attachment", { attachment });
  }

  #thinking(): Block {
    const rng = this.#rng;
    const signature = rng.base62(rng.int(200, 900));
    const empty = !this.#w.legacy && rng.chance(0.5);
    return {
      type: "thinking",
      thinking: empty ? "" : `${rng.pick(THOUGHTS)} ${rng.pick(THOUGHTS)}`,
      signature,
    };
  }

  #text(): Block {
    const rng = this.#rng;
    const parts = [rng.pick(REPLIES)];
    for (let i = rng.int(0, 2); i > 0; i--) parts.push(rng.pick(REPLIES));
    return { type: "text", text: parts.join("\n\n") };
  }

  #singleLine(): boolean {
    return this.#w.legacy && this.#rng.chance(0.6);
  }

  #newCalls(count: number, maxBlob: number, kinds?: ToolKind[]): ToolCall[] {
    const weights = { ...TOOL_WEIGHTS };
    if (!this.#spec.allowAgents) weights.agent = 0;
    const calls: ToolCall[] = [];
    for (let i = 0; i < count; i++) {
      const kind = kinds?.[i] ?? this.#rng.weighted(weights);
      calls.push(makeToolCall(kind, {
        rng: this.#rng,
        pools: this.#pools,
        cwd: this.#cwd,
        maxBlob: Math.floor(maxBlob / count),
        blob: (bytes) => this.#w.blob(bytes),
      }));
    }
    return calls;
  }

  /** One assistant message with tool calls, then (usually) their results. */
  #toolStep(maxBlob: number, kinds?: ToolKind[]): StepEnd {
    const rng = this.#rng;
    const count = kinds?.length ?? (rng.chance(0.25) ? rng.int(2, 4) : 1);
    const calls = this.#newCalls(count, maxBlob, kinds);
    const uuids = this.#callMessage(calls, rng.chance(0.6), rng.chance(0.4));
    if (kinds === undefined && rng.chance(0.004)) return "killed";
    if (kinds === undefined && rng.chance(0.03)) {
      this.#interrupt(calls, uuids);
      return "interrupted";
    }
    const order = rng.shuffle(calls.map((_, i) => i));
    for (const i of order) this.#result(calls[i] as ToolCall, uuids[i] ?? "");
    for (const c of calls) if (c.agentId) this.#launched(c.agentId);
    return "answered";
  }

  /** Writes the assistant message; returns the uuid of each call's line. */
  #callMessage(calls: ToolCall[], think: boolean, say: boolean): string[] {
    const blocks: Block[] = [];
    if (think) blocks.push(this.#thinking());
    if (say) blocks.push(this.#text());
    const first = blocks.length;
    for (const c of calls) {
      blocks.push({ type: "tool_use", id: c.id, name: c.name, input: c.input });
    }
    const single = this.#singleLine();
    const uuids = this.#w.assistant(blocks, {
      stopReason: "tool_use",
      singleLine: single,
    });
    return calls.map((_, i) => (single ? uuids[0] : uuids[first + i]) ?? "");
  }

  #result(call: ToolCall, assistantUuid: string): void {
    const block: Record<string, unknown> = {
      tool_use_id: call.id,
      type: "tool_result",
      content: call.content,
    };
    if (call.isError) block.is_error = true;
    this.#w.user([block], {
      toolUseResult: call.toolUseResult,
      sourceToolAssistantUUID: assistantUuid,
    });
  }

  #launched(agentId: string): void {
    this.#agentIds.push(agentId);
    this.#pendingAgents.push(agentId);
  }

  #interrupt(calls: ToolCall[], uuids: string[]): void {
    calls.forEach((c, i) => {
      this.#w.user(
        [{
          type: "tool_result",
          content: REJECTED,
          is_error: true,
          tool_use_id: c.id,
        }],
        {
          toolUseResult: "User rejected tool use",
          toolDenialKind: "user_rejected",
          sourceToolAssistantUUID: uuids[i] ?? "",
        },
      );
    });
    this.#w.user([{
      type: "text",
      text: "[Request interrupted by user for tool use]",
    }]);
  }

  #answer(): void {
    const blocks: Block[] = [];
    if (this.#rng.chance(0.7)) blocks.push(this.#thinking());
    blocks.push(this.#text());
    this.#w.assistant(blocks, {
      stopReason: "end_turn",
      singleLine: this.#singleLine(),
    });
  }

  #stopHookSummary(prevented: boolean): void {
    this.#w.system("stop_hook_summary", {
      hookCount: 1,
      hookInfos: [{ command: "/home/dev/.local/bin/stall-watch" }],
      hookErrors: prevented ? ["Tests are failing"] : [],
      preventedContinuation: false,
      stopReason: "",
      hasOutput: prevented,
      level: "suggestion",
    });
  }

  #stopHookFeedback(): void {
    this.#stopHookSummary(true);
    this.#w.user(
      "Stop hook feedback:\n[/home/dev/.local/bin/stall-watch]: stall_watch: 1 pending tool_use in transcript — do not end the turn yet.",
      { isMeta: true },
    );
    this.#toolStep(this.#maxBlob(), ["bash"]);
    this.#answer();
  }

  #endTurn(): void {
    const rng = this.#rng;
    const w = this.#w;
    this.#stopHookSummary(false);
    w.system("turn_duration", { durationMs: rng.int(2_000, 900_000) });
    const sessionId = this.#w.sessionId;
    if (rng.chance(0.3)) {
      w.meta("last-prompt", { lastPrompt: rng.pick(PROMPTS), sessionId });
    }
    if (rng.chance(0.05)) {
      w.meta("ai-title", { aiTitle: "Fix the stall detector 🛠", sessionId });
    }
    if (rng.chance(0.03)) {
      w.meta("permission-mode", {
        permissionMode: rng.pick(["default", "acceptEdits", "plan"]),
        sessionId,
      });
    }
  }

  #compact(): void {
    const rng = this.#rng;
    const w = this.#w;
    w.newTurn();
    const logicalParentUuid = w.lastUuid;
    w.conversation("system", {
      subtype: "compact_boundary",
      content: "Conversation compacted",
      isMeta: false,
      level: "info",
      logicalParentUuid,
      compactMetadata: {
        trigger: rng.chance(0.8) ? "auto" : "manual",
        preTokens: rng.int(120_000, 170_000),
      },
    }, null);
    const summary =
      "This session is being continued from a previous conversation that ran out of context. The summary below covers the earlier portion of the conversation.\n\nSummary:\n1. Primary Request and Intent: make the Stop hook fast on large transcripts (café, 日本語 and emoji 🚀 must survive).\n2. Key Technical Concepts: backward line reading, turn scoping, tool_use/tool_result pairing.\n3. Files and Code Sections:\n" +
      this.#pools.code.snippet(rng, rng.int(20, 80));
    w.user(summary, {
      isVisibleInTranscriptOnly: true,
      isCompactSummary: true,
    });
    this.#scheduleCompaction();
  }

  #taskNotification(): void {
    const w = this.#w;
    const agentId = this.#pendingAgents.shift() ?? "";
    w.newTurn();
    w.user(
      `<task-notification>\n<task-id>${agentId}</task-id>\n<status>completed</status>\n<summary>Agent "Survey transcript readers" completed</summary>\n<result>Found 3 readers; only one reads from the end → fine.</result>\n</task-notification>`,
    );
    this.#answer();
    this.#endTurn();
  }

  #localCommand(): void {
    const w = this.#w;
    w.newTurn();
    w.user(
      "Caveat: The messages below were generated by the user while running local commands. DO NOT respond to these messages or otherwise consider them in your response unless the user explicitly asks you to.",
      { isMeta: true },
    );
    w.user(
      "<command-name>/model</command-name>\n<command-message>model</command-message>\n<command-args></command-args>",
    );
    w.user(
      `<local-command-stdout>Set model to opus (claude-opus-4-5-20251101)</local-command-stdout>`,
    );
  }

  #queued(): void {
    const w = this.#w;
    const op = { timestamp: w.now(), sessionId: this.#w.sessionId };
    w.meta("queue-operation", {
      operation: "enqueue",
      ...op,
      content: "also run lint",
    });
    w.meta("queue-operation", { operation: "dequeue", ...op });
  }

  /** The small last turn; returns the pending Read's id for a stalled tail. */
  #finalTurn(): string | undefined {
    const rng = this.#rng;
    const w = this.#w;
    w.legacy = false;
    w.tick(30_000, 600_000);
    this.#prompt();
    this.#toolStep(4_000, ["bash"]);
    this.#toolStepExact(["read", "grep"], this.#fillBytes());
    if (this.#spec.tail === "healthy") {
      this.#answer();
      if (rng.chance(0.5)) this.#trailingMeta();
      return undefined;
    }
    const [call] = this.#newCalls(1, 2_000, ["read"]);
    if (!call) return undefined;
    this.#callMessage([call], rng.chance(0.7), true);
    this.#trailingMeta();
    if (rng.chance(0.5)) this.#trailingMeta();
    return call.id;
  }

  /**
   * Sizes the final read so the file ends near the requested size. A read
   * is written twice: numbered, and raw (about 10% shorter).
   */
  #fillBytes(): number {
    const left = this.#spec.size - this.#bytes() - FINAL_TAIL_BYTES;
    return Math.max(300, Math.min(MAX_FINAL_READ, Math.floor(left / 1.9)));
  }

  #toolStepExact(kinds: ToolKind[], readBytes: number): void {
    const calls = kinds.map((kind) =>
      makeToolCall(kind, {
        rng: this.#rng,
        pools: this.#pools,
        cwd: this.#cwd,
        maxBlob: 2 * readBytes + 1,
        exactSize: readBytes,
        blob: (bytes) => this.#w.blob(bytes),
      })
    );
    const uuids = this.#callMessage(calls, true, true);
    for (const i of this.#rng.shuffle(calls.map((_, i) => i))) {
      this.#result(calls[i] as ToolCall, uuids[i] ?? "");
    }
  }

  #trailingMeta(): void {
    const w = this.#w;
    if (this.#rng.chance(0.5)) {
      w.meta("last-prompt", { lastPrompt: "…", sessionId: this.#w.sessionId });
    } else {
      w.meta("file-history-snapshot", {
        messageId: w.lastUuid,
        snapshot: {
          messageId: w.lastUuid,
          trackedFileBackups: {},
          timestamp: w.now(),
        },
        isSnapshotUpdate: true,
      });
    }
  }
}
