/**
 * The adversarial inputs of `deno task bench:worst`, generated on the fly:
 * each is a transcript (and sometimes a prepared start directory) plus the
 * Stop payload that makes the hook read it. They are the inputs named in
 * issue 14, each built to hit one cost of a decision as hard as the input
 * limits (a 32 MiB payload, whatever a file may hold) allow.
 *
 * @module
 */

import { ChunkWriter } from "./chunk_writer.ts";

const MIB = 1024 * 1024;
const SESSION = "5b0e7d2c-1f3a-4c9e-8d6b-2a7f0c4e9b13";

/** One prepared input. */
export interface WorstInput {
  /** The row's name in the table. */
  readonly name: string;
  /** What it is, in words. */
  readonly what: string;
  /** The transcript the payload names. */
  readonly transcript: string;
  /** The Stop payload, as an object (`transcript_path` and `cwd` are filled in). */
  readonly payload: Record<string, unknown>;
  /** Extra environment for the hook. */
  readonly env: Readonly<Record<string, string>>;
  /** Prepares the start directory of one run (e.g. plants a FIFO). */
  readonly prepareCwd?: (cwd: string) => Promise<void>;
  /** While the hook runs, appends to the transcript every this many ms. */
  readonly growEveryMs?: number;
  /**
   * What each growth appends: this many NUL bytes, a sparse hole made by
   * extending the file (no disk; undone after each run), in place of a
   * metadata line.
   */
  readonly growBytes?: number;
  /** Also time `wc -l` of the transcript, for the line-number target. */
  readonly compareWc?: boolean;
}

/** The envelope Claude Code writes around every conversation entry. */
function envelope(
  type: string,
  uuid: number,
  body: Record<string, unknown>,
): string {
  return JSON.stringify({
    parentUuid: uuid === 1 ? null : `uuid-${uuid - 1}`,
    isSidechain: false,
    userType: "external",
    cwd: "/home/dev/projects/invoice-api",
    sessionId: SESSION,
    version: "2.1.332",
    gitBranch: "main",
    type,
    ...body,
    uuid: `uuid-${uuid}`,
    timestamp: "2026-03-14T09:12:03.516Z",
  }) + "\n";
}

function prompt(uuid: number, text: string): string {
  return envelope("user", uuid, {
    message: { role: "user", content: text },
    promptId: "prompt-1",
  });
}

function assistant(uuid: number, id: string, blocks: unknown[]): string {
  return envelope("assistant", uuid, {
    message: {
      model: "claude-opus-4-5-20251101",
      id,
      type: "message",
      role: "assistant",
      content: blocks,
      stop_reason: "tool_use",
      usage: { input_tokens: 3, output_tokens: 40 },
    },
    requestId: `req_${id}`,
  });
}

function call(id: string, name: string): Record<string, unknown> {
  return { type: "tool_use", id, name, input: { file_path: "/src/a.ts" } };
}

function result(uuid: number, id: string, text: string): string {
  return envelope("user", uuid, {
    message: {
      role: "user",
      content: [{ tool_use_id: id, type: "tool_result", content: text }],
    },
    toolUseResult: { stdout: text },
    promptId: "prompt-1",
  });
}

/** A turn's opening: a prompt and one call that never got its result. */
function stalledOpening(): string {
  return prompt(1, "Please read the config and fix the port.") +
    assistant(2, "msg_open", [call("toolu_pending", "Read")]);
}

function write(path: string, fill: (out: ChunkWriter) => void): void {
  const out = new ChunkWriter(
    Deno.openSync(path, { write: true, create: true, truncate: true }),
  );
  try {
    fill(out);
  } finally {
    out.close();
  }
}

function repeatTo(out: ChunkWriter, text: string, bytes: number): void {
  const block = text.repeat(Math.max(1, Math.floor(MIB / text.length)));
  while (out.bytes + block.length <= bytes) out.text(block);
  while (out.bytes + text.length <= bytes) out.text(text);
}

function stop(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    session_id: SESSION,
    hook_event_name: "Stop",
    stop_hook_active: false,
    prompt_id: "prompt-1",
    ...extra,
  };
}

/** Lag wait off unless a row is about it: a row measures one cost. */
const NO_LAG = { STALL_WATCH_LAG_WAIT_MS: "0" };

/**
 * Writes every input into `dir`. Requires `--allow-write` (and
 * `--allow-run` for `mkfifo`).
 *
 * @param options.gb Also the 1 GiB stalled transcript (`gbTranscript`).
 */
export function writeWorstInputs(
  dir: string,
  options: { gbTranscript: string | null },
): WorstInput[] {
  const inputs: WorstInput[] = [];
  const path = (name: string) => `${dir}/${name}.jsonl`;

  // 1. The follow-up proof: one pending call, then one message's text
  // split over 40K lines (within the entries budget), with
  // last_assistant_message set.
  const followUp = path("follow-up-proof");
  write(followUp, (out) => {
    out.text(stalledOpening());
    const words = "checked the handler, its tests and the config loader; ";
    for (let i = 0; out.bytes < 8.5 * MIB; i++) {
      out.text(
        JSON.stringify({
          type: "assistant",
          message: {
            id: "msg_long",
            content: [{ type: "text", text: `${i}: ${words.repeat(2)}` }],
          },
        }) + "\n",
      );
    }
  });
  inputs.push({
    name: "follow-up proof",
    what: "8.5 MiB: a pending call, then 45K text lines of one message; " +
      "last_assistant_message set",
    transcript: followUp,
    payload: stop({ last_assistant_message: "All done: the port is 8081." }),
    env: NO_LAG,
  });

  // The claim itself can be most of a 32 MiB payload.
  const stalledTurn = path("stalled-small");
  write(stalledTurn, (out) => out.text(stalledOpening()));
  inputs.push({
    name: "30 MB last message",
    what: "a pending call; last_assistant_message of 30 MB (6M words)",
    transcript: stalledTurn,
    payload: stop({ last_assistant_message: "word ".repeat(6_000_000) }),
    env: NO_LAG,
  });

  // 2, 3. Cheap lines in bulk after a pending call.
  for (
    const [name, line] of [["blank lines", "\n"], ["{} lines", "{}\n"]] as const
  ) {
    const file = path(name === "blank lines" ? "blank-lines" : "empty-objects");
    write(file, (out) => {
      out.text(stalledOpening());
      repeatTo(out, line, 64 * MIB);
    });
    inputs.push({
      name,
      what: `a pending call, then 64 MiB of ${JSON.stringify(line)} lines`,
      transcript: file,
      payload: stop(),
      env: NO_LAG,
    });
  }

  // Lines just under the long-line limit, each 21,000 NUL-separated pieces.
  const nulPieces = path("nul-pieces");
  write(nulPieces, (out) => {
    out.text(stalledOpening());
    repeatTo(out, "{}\u0000".repeat(21_000) + "\n", 64 * MIB);
  });
  inputs.push({
    name: "NUL-cut lines",
    what: "a pending call, then 64 MiB of lines of 21,000 NUL-separated {}",
    transcript: nulPieces,
    payload: stop(),
    env: NO_LAG,
  });

  // As much text as the byte budget holds, all of it kept for the proof:
  // lines just under the long-line limit, two UTF-8 bytes per character.
  const texts = path("long-texts");
  write(texts, (out) => {
    out.text(stalledOpening());
    const line = JSON.stringify({
      type: "assistant",
      message: {
        id: "msg_t",
        content: [{ type: "text", text: "é".repeat(32_000) }],
      },
    }) + "\n";
    repeatTo(out, line, 64 * MIB);
  });
  inputs.push({
    name: "64 MiB of text",
    what: "a pending call, then 64 MiB of 64 KB text lines (é); " +
      "last_assistant_message set",
    transcript: texts,
    payload: stop({ last_assistant_message: "All done: the port is 8081." }),
    env: NO_LAG,
  });

  // A finished turn whose final message is 30 MiB of text ending on an
  // announcement (with blocking on, the announced_no_call judge and its
  // nudge run): only the end of the message may be read and joined,
  // however long it is (the code before joined every text of it).
  const announced = path("announced-long-final");
  write(announced, (out) => {
    out.text(prompt(1, "Check every module and fix what fails."));
    out.text(assistant(2, "msg_read", [call("toolu_read", "Read")]));
    out.text(result(3, "toolu_read", "export const port = 8080;"));
    const line = (text: string) =>
      JSON.stringify({
        type: "assistant",
        message: {
          id: "msg_final",
          content: [{ type: "text", text }],
          stop_reason: null,
        },
      }) + "\n";
    const body = line('Checked `mod.ts`: **ok**, "fine". '.repeat(1_600));
    while (out.bytes + body.length <= 30 * MIB) out.text(body);
    out.text(line("Let me run the tests now:"));
  });
  inputs.push({
    name: "announced, 30 MiB final",
    what: "a finished turn whose final message is 30 MiB of 64 KB text " +
      "lines ending on an announcement; an 8 MB last_assistant_message " +
      "ending on it; announced_no_call: block",
    transcript: announced,
    payload: stop({
      last_assistant_message: "Checked `mod.ts`: ok. ".repeat(400_000) +
        "Let me run the tests now:",
    }),
    env: { ...NO_LAG, STALL_WATCH_ANNOUNCED_NO_CALL: "block" },
  });

  // A finished turn whose final message is one 16 KiB line (the most of
  // it the judge reads) of a word, U+3000 spaces and a question mark, the
  // payload's last message the same: the heading cut's `\s+#+\s*$`
  // retried from every space of the run (issue 41, round 5: 1.1 s).
  const spaced = path("spaced-final");
  const spacedText = "Done" + "\u3000".repeat(16 * 1024 - 5) + "?";
  write(spaced, (out) => {
    out.text(prompt(1, "Check every module and fix what fails."));
    out.text(assistant(2, "msg_read", [call("toolu_read", "Read")]));
    out.text(result(3, "toolu_read", "export const port = 8080;"));
    out.text(
      JSON.stringify({
        type: "assistant",
        message: {
          id: "msg_final",
          content: [{ type: "text", text: spacedText }],
          stop_reason: "end_turn",
        },
      }) + "\n",
    );
  });
  inputs.push({
    name: "16 KiB of spaces, final",
    what: "a finished turn whose final message (and last_assistant_message) " +
      "is a word, 16 KiB of U+3000 spaces and a question mark",
    transcript: spaced,
    payload: stop({ last_assistant_message: spacedText }),
    env: NO_LAG,
  });

  // 4. An 8 GiB sparse file without one newline.
  const sparse = path("sparse-8g");
  sparseFile(sparse, 8 * 1024 * MIB, "");
  inputs.push({
    name: "sparse, no newline",
    what: "8 GiB sparse file (NUL bytes), not one newline",
    transcript: sparse,
    payload: stop(),
    env: NO_LAG,
  });

  // 5. The same, with a stalled turn after it: line numbers would need a
  // pass over 8 GiB.
  const sparseTail = path("sparse-8g-stalled");
  sparseFile(sparseTail, 8 * 1024 * MIB, "\n" + stalledOpening());
  inputs.push({
    name: "sparse, then a stall",
    what: "8 GiB of NUL bytes, then a newline and a stalled turn",
    transcript: sparseTail,
    payload: stop(),
    env: NO_LAG,
  });

  // 6. 100 pending MCP calls against 1M running background tasks.
  const mcp = path("mcp-100");
  write(mcp, (out) => {
    out.text(prompt(1, "Open issues for every failing check."));
    const calls = Array.from(
      { length: 100 },
      (_, i) => call(`toolu_mcp_${i}`, `mcp__github__create_issue_${i}`),
    );
    out.text(assistant(2, "msg_mcp", calls));
  });
  const tasks = Array.from(
    { length: 1_000_000 },
    (_, i) => ({ id: `t${i}`, tool: `t${i % 997}` }),
  );
  inputs.push({
    name: "100 pending x 10K tasks",
    what: "the same calls; 10,000 running background_tasks (the budget), " +
      "none linked: every call is linked through the index",
    transcript: mcp,
    payload: stop({ background_tasks: tasks.slice(0, 10_000) }),
    env: NO_LAG,
  });
  inputs.push({
    name: "100 pending x 1M tasks",
    what: "100 pending MCP calls; 1M running background_tasks, none linked",
    transcript: mcp,
    payload: stop({ background_tasks: tasks }),
    env: NO_LAG,
  });

  // 7. A stalled 20 MiB turn that grows every 10 ms during the lag wait.
  const growing = path("growing-20m");
  write(growing, (out) => {
    out.text(prompt(1, "Refactor the billing module."));
    const chunk = "The invoice total is computed per line item. ".repeat(10);
    let uuid = 2;
    for (let i = 0; out.bytes < 20 * MIB; i++) {
      out.text(assistant(uuid++, `msg_${i}`, [call(`toolu_${i}`, "Read")]));
      out.text(result(uuid++, `toolu_${i}`, chunk));
    }
    out.text(assistant(uuid, "msg_last", [call("toolu_pending", "Read")]));
  });
  inputs.push({
    name: "growing stalled turn",
    what: "20 MiB stalled turn; a metadata line appended every 10 ms; " +
      "lag wait 1,000 ms (default)",
    transcript: growing,
    payload: stop(),
    env: {},
    growEveryMs: 10,
  });

  // 7b. A stalled turn that keeps growing during the lag wait, faster than
  // anything can read it (issue 41): 1 MiB every 10 ms, and 2 GiB at once
  // every 500 ms (the first lands after the first look at low load; at high
  // load a look may meet the hole and stop at its byte budget). The wait's reads have the look's byte budget and its
  // deadline, and go on from where the last one stopped.
  const growingFast = path("growing-fast");
  write(growingFast, (out) => {
    out.text(prompt(1, "Refactor the billing module."));
    const chunk = "The invoice total is computed per line item. ".repeat(10);
    let uuid = 2;
    for (let i = 0; i < 200; i++) {
      out.text(assistant(uuid++, `msg_${i}`, [call(`toolu_${i}`, "Read")]));
      out.text(result(uuid++, `toolu_${i}`, chunk));
    }
    out.text(assistant(uuid, "msg_last", [call("toolu_pending", "Read")]));
  });
  inputs.push({
    name: "growing 100 MiB/s",
    what: "a stalled turn growing by 1 MiB of NUL bytes every 10 ms; " +
      "lag wait 1,000 ms (default)",
    transcript: growingFast,
    payload: stop(),
    env: {},
    growEveryMs: 10,
    growBytes: MIB,
  });
  inputs.push({
    name: "growing 2 GiB at once",
    what: "a stalled turn growing by 2 GiB of NUL bytes every 500 ms; " +
      "lag wait 1,000 ms (default)",
    transcript: growingFast,
    payload: stop(),
    env: {},
    growEveryMs: 500,
    growBytes: 2048 * MIB,
  });

  // 8. 738K pending calls (100 per line), event log on.
  const many = path("pending-738k");
  write(many, (out) => {
    out.text(prompt(1, "Read every file in the repository."));
    let uuid = 2;
    for (let i = 0; i < 738_000; i += 100) {
      const calls = Array.from(
        { length: 100 },
        (_, j) => call(`toolu_${String(i + j).padStart(7, "0")}`, "Read"),
      );
      out.text(assistant(uuid++, `msg_${i}`, calls));
    }
  });
  inputs.push({
    name: "738K pending calls",
    what: "738K pending calls (100 per line, 61 MiB); event log on",
    transcript: many,
    payload: stop(),
    env: {
      ...NO_LAG,
      STALL_WATCH_LOG_FILE: ".claude/stall_watch/events.jsonl",
    },
  });

  // 8b. One overlong line of 2.4M result ids (issue 32): the ids count
  // against the entries budget while the line streams past.
  const ids = path("result-ids-2400k");
  write(ids, (out) => {
    out.text(stalledOpening());
    out.text(
      '{"parentUuid":"uuid-2","isSidechain":false,"type":"user",' +
        '"promptId":"prompt-1","message":{"role":"user","content":[',
    );
    for (let i = 0; i < 2_400_000; i += 10_000) {
      let block = "";
      for (let j = i; j < i + 10_000; j++) {
        block += `${j === 0 ? "" : ","}{"tool_use_id":"t${
          String(j).padStart(7, "0")
        }"}`;
      }
      out.text(block);
    }
    out.text("]}}\n");
  });
  inputs.push({
    name: "2.4M result ids",
    what: "a pending call, then one line of 2.4M tool_result ids (64.8 MB)",
    transcript: ids,
    payload: stop(),
    env: NO_LAG,
  });

  // 9. A FIFO planted where the state folder's prune marker goes.
  inputs.push({
    name: "FIFO prune marker",
    what: "a stalled turn; .claude/stall_watch/.last-prune is a FIFO",
    transcript: stalledTurn,
    payload: stop(),
    env: NO_LAG,
    prepareCwd: async (cwd) => {
      const marker = `${cwd}/.claude/stall_watch/.last-prune`;
      await Deno.mkdir(`${cwd}/.claude/stall_watch`, { recursive: true });
      const made = await new Deno.Command("mkfifo", { args: [marker] })
        .output();
      if (!made.success) throw new Error("Cannot run mkfifo");
      // Old enough that a prune is due.
      await Deno.utime(marker, 0, 0);
    },
  });

  // 10. The 1 GiB stalled transcript of `deno task bench`.
  if (options.gbTranscript !== null) {
    inputs.push({
      name: "1 GiB stalled",
      what: "the 1 GiB generated transcript, stalled tail (line numbers)",
      transcript: options.gbTranscript,
      payload: stop({ prompt_id: null }),
      env: NO_LAG,
      compareWc: true,
    });
  }
  return inputs;
}

/** A file of `size` NUL bytes (a hole: no disk used), then `tail`. */
function sparseFile(path: string, size: number, tail: string): void {
  const file = Deno.openSync(path, {
    write: true,
    create: true,
    truncate: true,
  });
  try {
    file.truncateSync(size);
    file.seekSync(size, Deno.SeekMode.Start);
    const bytes = new TextEncoder().encode(tail);
    let at = 0;
    while (at < bytes.length) at += file.writeSync(bytes.subarray(at));
  } finally {
    file.close();
  }
}

/** The line the growing row appends: metadata that changes no verdict. */
export const GROWTH_LINE: string = JSON.stringify({
  type: "progress",
  sessionId: SESSION,
  data: { type: "hook_progress", hookEvent: "Stop" },
}) + "\n";
