/**
 * Writes transcript entries with the Claude Code envelope (see
 * `shared/reference/claude-code-hooks.md` section 5): conversation entries
 * chained by `parentUuid`, assistant messages one content block per line,
 * tool results, system entries and uuid-less metadata entries.
 *
 * Large payloads are registered as pre-escaped byte slices ("blobs") with
 * {@linkcode EntryWriter.blob}, which returns a placeholder string to put in
 * the entry; the bytes are spliced in where the placeholder lands in the
 * serialized line, so they are never re-serialized.
 *
 * @module
 */

import type { ChunkWriter } from "./chunk_writer.ts";
import type { Rng } from "./prng.ts";

/** Claude Code version written on current entries (has `promptId`). */
export const VERSION = "2.1.231";
/** Claude Code version written on legacy entries (before `promptId`). */
export const LEGACY_VERSION = "2.1.178";
/** The model named in assistant messages. */
export const MODEL = "claude-opus-4-5-20251101";

/** A pre-escaped JSON string body (no quotes), UTF-8 encoded. */
export type Blob = Uint8Array;

const BLOB_PREFIX = "@@blob:";
const BLOB_SUFFIX = "@@";

/** Who is writing the transcript. */
export interface Identity {
  /** The session id (also the file name). */
  readonly sessionId: string;
  /** Working directory written on every entry. */
  readonly cwd: string;
  /** Git branch written on every entry. */
  readonly gitBranch: string;
  /** Set for a subagent transcript: entries are sidechain entries. */
  readonly agentId?: string;
}

/** A content block of an assistant message. */
export type Block = Record<string, unknown>;

/** Options for {@linkcode EntryWriter.assistant}. */
export interface AssistantOptions {
  /** `stop_reason` of the last block (`tool_use` or `end_turn`). */
  readonly stopReason: "tool_use" | "end_turn";
  /** Write all blocks in one line, as older versions did. */
  readonly singleLine?: boolean;
}

/** Emits transcript lines for one session, keeping the uuid chain and the clock. */
export class EntryWriter {
  /** The output sink. */
  readonly out: ChunkWriter;
  /** The current turn's prompt id (undefined in legacy mode). */
  promptId: string | undefined;
  /** Write entries as an older Claude Code version: no `promptId`. */
  legacy = false;
  /** Number of lines written. */
  lines = 0;
  #rng: Rng;
  #id: Identity;
  #clock: number;
  #parent: string | null = null;
  #blobs: Blob[] = [];

  /** Starts a session at `startMs` (epoch milliseconds). */
  constructor(out: ChunkWriter, rng: Rng, identity: Identity, startMs: number) {
    this.out = out;
    this.#rng = rng;
    this.#id = identity;
    this.#clock = startMs;
  }

  /** The session id written on every entry. */
  get sessionId(): string {
    return this.#id.sessionId;
  }

  /** The uuid of the last conversation entry, or null at the start. */
  get lastUuid(): string | null {
    return this.#parent;
  }

  /** Moves the clock forward by a random duration in [minMs, maxMs]. */
  tick(minMs: number, maxMs: number): void {
    this.#clock += this.#rng.int(minMs, maxMs);
  }

  /**
   * Starts a new turn: a fresh `promptId` shared by the turn's entries.
   * Blobs registered before are forgotten.
   */
  newTurn(): void {
    this.promptId = this.legacy ? undefined : this.#rng.uuid();
    this.#blobs = [];
  }

  /** Registers a pre-escaped payload; returns the placeholder to put in an entry. */
  blob(bytes: Blob): string {
    this.#blobs.push(bytes);
    return `${BLOB_PREFIX}${this.#blobs.length - 1}${BLOB_SUFFIX}`;
  }

  /** The current timestamp as an ISO string. */
  now(): string {
    return new Date(this.#clock).toISOString();
  }

  /**
   * Writes a conversation entry (`user`, `assistant`, `system`, `attachment`)
   * with the full envelope and returns its uuid. `parent` overrides the chain
   * (compaction boundaries use null).
   */
  conversation(
    type: string,
    body: Record<string, unknown>,
    parent: string | null = this.#parent,
  ): string {
    this.tick(40, 2500);
    const uuid = this.#rng.uuid();
    const entry: Record<string, unknown> = {
      parentUuid: parent,
      isSidechain: this.#id.agentId !== undefined,
      userType: "external",
      cwd: this.#id.cwd,
      sessionId: this.#id.sessionId,
      version: this.legacy ? LEGACY_VERSION : VERSION,
      gitBranch: this.#id.gitBranch,
    };
    if (this.#id.agentId !== undefined) entry.agentId = this.#id.agentId;
    entry.type = type;
    Object.assign(entry, body);
    entry.uuid = uuid;
    entry.timestamp = this.now();
    if (this.promptId !== undefined) entry.promptId = this.promptId;
    this.#emit(entry);
    this.#parent = uuid;
    return uuid;
  }

  /** Writes a metadata entry (no uuid, not part of the chain). */
  meta(type: string, body: Record<string, unknown>): void {
    this.#emit({ type, ...body });
  }

  /** Writes a user entry whose message content is `content`; returns its uuid. */
  user(content: unknown, extra: Record<string, unknown> = {}): string {
    return this.conversation("user", {
      message: { role: "user", content },
      ...extra,
    });
  }

  /**
   * Writes one assistant API message, one line per content block (or one
   * line for all, when `singleLine`), sharing `message.id` and `requestId`;
   * `stop_reason` is null except on the last line. Returns each line's uuid.
   */
  assistant(blocks: readonly Block[], options: AssistantOptions): string[] {
    const rng = this.#rng;
    const id = `msg_01${rng.base62(22)}`;
    const requestId = `req_011C${rng.base62(20)}`;
    const usage = {
      input_tokens: rng.int(1, 12),
      cache_creation_input_tokens: rng.int(0, 9000),
      cache_read_input_tokens: rng.int(10_000, 150_000),
      output_tokens: rng.int(8, 2400),
      service_tier: "standard",
    };
    const groups = options.singleLine ? [blocks] : blocks.map((b) => [b]);
    const uuids: string[] = [];
    groups.forEach((content, i) => {
      const last = i === groups.length - 1;
      const message = {
        model: MODEL,
        id,
        type: "message",
        role: "assistant",
        content,
        stop_reason: last ? options.stopReason : null,
        stop_sequence: null,
        usage,
      };
      uuids.push(this.conversation("assistant", { message, requestId }));
    });
    return uuids;
  }

  /** Writes a `system` entry of `subtype`; returns its uuid. */
  system(subtype: string, body: Record<string, unknown>): string {
    return this.conversation("system", { subtype, ...body, isMeta: false });
  }

  #emit(entry: Record<string, unknown>): void {
    const json = JSON.stringify(entry);
    this.lines++;
    let from = 0;
    for (;;) {
      const at = json.indexOf(BLOB_PREFIX, from);
      if (at < 0) break;
      const end = json.indexOf(BLOB_SUFFIX, at + BLOB_PREFIX.length);
      const blob =
        this.#blobs[Number(json.slice(at + BLOB_PREFIX.length, end))];
      if (!blob) {
        throw new RangeError(
          `Cannot place blob: "${json.slice(at, end)}" unknown`,
        );
      }
      this.out.text(json.slice(from, at));
      this.out.raw(blob);
      from = end + BLOB_SUFFIX.length;
    }
    this.out.text(from === 0 ? json + "\n" : json.slice(from) + "\n");
  }
}
