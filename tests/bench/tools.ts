/**
 * Tool calls for the transcript generator: for each kind of tool, a
 * `tool_use` input and the matching `tool_result` content and top-level
 * `toolUseResult`, shaped like Claude Code writes them (section 5.3 of
 * `shared/reference/claude-code-hooks.md`).
 *
 * @module
 */

import type { Pools } from "./payloads.ts";
import type { Rng } from "./prng.ts";

/** The kinds of tool call the generator can make. */
export type ToolKind =
  | "read"
  | "readImage"
  | "bash"
  | "grep"
  | "glob"
  | "edit"
  | "write"
  | "todo"
  | "agent"
  | "mcpIssue"
  | "mcpQuery"
  | "webFetch";

/** How often each kind is picked in ordinary history. */
export const TOOL_WEIGHTS: Readonly<Record<ToolKind, number>> = {
  read: 30,
  readImage: 2,
  bash: 20,
  grep: 9,
  glob: 5,
  edit: 12,
  write: 3,
  todo: 5,
  agent: 3,
  mcpIssue: 4,
  mcpQuery: 4,
  webFetch: 3,
};

/** What a tool call needs from the session being generated. */
export interface ToolContext {
  /** The generator's random source. */
  readonly rng: Rng;
  /** Shared payload pools. */
  readonly pools: Pools;
  /** The session's working directory. */
  readonly cwd: string;
  /** Upper bound, in bytes, for the large payloads of this call. */
  readonly maxBlob: number;
  /** Registers a pre-escaped payload and returns its placeholder. */
  readonly blob: (bytes: Uint8Array) => string;
  /** Exact size for a successful `Read` (no random size, no error). */
  readonly exactSize?: number;
}

/** One generated tool call and its result. */
export interface ToolCall {
  /** The `toolu_...` id. */
  readonly id: string;
  /** The tool name (`mcp__server__tool` for MCP tools). */
  readonly name: string;
  /** The `tool_use` input. */
  readonly input: Record<string, unknown>;
  /** The `tool_result` block's `content`. */
  readonly content: unknown;
  /** The result entry's top-level `toolUseResult`. */
  readonly toolUseResult: unknown;
  /** Set when the result is an error. */
  readonly isError?: true;
  /** Set for background subagent launches. */
  readonly agentId?: string;
}

type Made = Omit<ToolCall, "id">;

const READ_REMINDER =
  "\n\n<system-reminder>\nWhenever you read a file, you should consider whether it would be considered malware. You CAN and SHOULD provide analysis of malware, what it is doing. But you MUST refuse to improve or augment the code.\n</system-reminder>\n";
const NO_OUTPUT = "(Bash completed with no output)";
const FILES = [
  "src/line_reader.ts",
  "src/classify.ts",
  "src/turn.ts",
  "src/hook.ts",
  "tests/classify_test.ts",
  "README.md",
  "docs/café-notes.md",
  "src/日本語/util.ts",
];

/** Returns a new tool call of `kind` with a fresh id. */
export function makeToolCall(kind: ToolKind, ctx: ToolContext): ToolCall {
  const id = `toolu_01${ctx.rng.base62(22)}`;
  return { id, ...MAKERS[kind](ctx) };
}

/** Returns a size for a file read: mostly small, sometimes hundreds of KB. */
export function readSize(rng: Rng): number {
  const r = rng.float();
  if (r < 0.75) return rng.int(500, 8_000);
  if (r < 0.95) return rng.int(8_000, 60_000);
  return rng.int(100_000, 450_000);
}

const MAKERS: Readonly<Record<ToolKind, (ctx: ToolContext) => Made>> = {
  read: makeRead,
  readImage: makeReadImage,
  bash: makeBash,
  grep: makeGrep,
  glob: makeGlob,
  edit: makeEdit,
  write: makeWrite,
  todo: makeTodo,
  agent: makeAgent,
  mcpIssue: makeMcpIssue,
  mcpQuery: makeMcpQuery,
  webFetch: makeWebFetch,
};

function path(ctx: ToolContext): string {
  return `${ctx.cwd}/${ctx.rng.pick(FILES)}`;
}

function capped(size: number, ctx: ToolContext, copies: number): number {
  return Math.max(200, Math.min(size, Math.floor(ctx.maxBlob / copies)));
}

function makeRead(ctx: ToolContext): Made {
  const filePath = path(ctx);
  const input = { file_path: filePath };
  if (ctx.exactSize === undefined && ctx.rng.chance(0.03)) {
    const msg = "<tool_use_error>File does not exist.</tool_use_error>";
    return {
      name: "Read",
      input,
      content: msg,
      toolUseResult: `Error: ${msg}`,
      isError: true,
    };
  }
  const size = ctx.exactSize ?? readSize(ctx.rng);
  const slice = ctx.pools.code.slice(capped(size, ctx, 2));
  return {
    name: "Read",
    input,
    content: ctx.blob(slice.numbered) + READ_REMINDER,
    toolUseResult: {
      type: "text",
      file: {
        filePath,
        content: ctx.blob(slice.raw),
        numLines: slice.lines,
        startLine: 1,
        totalLines: slice.lines,
      },
    },
  };
}

function makeReadImage(ctx: ToolContext): Made {
  const data = ctx.blob(
    ctx.pools.image.slice(capped(ctx.rng.int(30_000, 600_000), ctx, 2)),
  );
  const filePath = `${ctx.cwd}/screenshots/shot-${ctx.rng.int(1, 99)}.png`;
  return {
    name: "Read",
    input: { file_path: filePath },
    content: [{
      type: "image",
      source: { type: "base64", media_type: "image/png", data },
    }],
    toolUseResult: {
      type: "image",
      file: {
        base64: data,
        type: "image/png",
        originalSize: ctx.rng.int(20_000, 500_000),
      },
    },
  };
}

const COMMANDS = [
  "deno test --allow-read",
  "git status --short",
  "deno lint",
  "git diff --stat",
  "ls -la src",
  "mkdir -p .claude/stall_watch",
];

function makeBash(ctx: ToolContext): Made {
  const rng = ctx.rng;
  const command = rng.pick(COMMANDS);
  const input = { command, description: `Run ${command.split(" ")[0]}` };
  if (rng.chance(0.08)) {
    const err = `Exit code 1\nerror: Test failed\n  at ${path(ctx)}:${
      rng.int(1, 300)
    }:7`;
    return {
      name: "Bash",
      input,
      content: err,
      toolUseResult: `Error: ${err}`,
      isError: true,
    };
  }
  const stdout = rng.chance(0.15) ? "" : bashOutput(ctx);
  return {
    name: "Bash",
    input,
    content: stdout === "" ? NO_OUTPUT : stdout,
    toolUseResult: { stdout, stderr: "", interrupted: false, isImage: false },
  };
}

function bashOutput(ctx: ToolContext): string {
  const lines: string[] = [];
  const n = ctx.rng.chance(0.1) ? ctx.rng.int(100, 600) : ctx.rng.int(1, 30);
  for (let i = 0; i < n; i++) {
    lines.push(
      `${ctx.rng.pick(FILES)} ... ok (${ctx.rng.int(1, 900)}ms) ${
        i % 17 === 0 ? "✓ café 日本語" : ""
      }`,
    );
  }
  return lines.join("\n");
}

function makeGrep(ctx: ToolContext): Made {
  const filenames = ctx.rng.shuffle([...FILES]).slice(0, ctx.rng.int(0, 6));
  return {
    name: "Grep",
    input: {
      pattern: "tool_use_id",
      path: ctx.cwd,
      output_mode: "files_with_matches",
    },
    content: filenames.length === 0
      ? "No files found"
      : `Found ${filenames.length} files\n${filenames.join("\n")}`,
    toolUseResult: {
      mode: "files_with_matches",
      filenames,
      numFiles: filenames.length,
    },
  };
}

function makeGlob(ctx: ToolContext): Made {
  const filenames = FILES.map((f) => `${ctx.cwd}/${f}`);
  return {
    name: "Glob",
    input: { pattern: "**/*.ts" },
    content: filenames.join("\n"),
    toolUseResult: {
      filenames,
      durationMs: ctx.rng.int(2, 90),
      numFiles: filenames.length,
      truncated: false,
    },
  };
}

function makeEdit(ctx: ToolContext): Made {
  const filePath = path(ctx);
  const code = ctx.pools.code;
  const oldString = code.snippet(ctx.rng, 3);
  const newString = `${oldString}\n  // stall-watch: é → ok`;
  const original = code.slice(capped(readSize(ctx.rng), ctx, 1));
  return {
    name: "Edit",
    input: {
      file_path: filePath,
      old_string: oldString,
      new_string: newString,
      replace_all: false,
    },
    content:
      `The file ${filePath} has been updated. Here's the result of running \`cat -n\` on a snippet of the edited file:\n${
        code.snippet(ctx.rng, 8)
      }`,
    toolUseResult: {
      filePath,
      oldString,
      newString,
      originalFile: ctx.blob(original.raw),
      structuredPatch: [{
        oldStart: 12,
        oldLines: 3,
        newStart: 12,
        newLines: 4,
        lines: [` ${oldString}`, "+  // stall-watch: é → ok"],
      }],
      userModified: false,
      replaceAll: false,
    },
  };
}

function makeWrite(ctx: ToolContext): Made {
  const filePath = path(ctx);
  const content = ctx.blob(
    ctx.pools.code.slice(capped(ctx.rng.int(500, 30_000), ctx, 2)).raw,
  );
  return {
    name: "Write",
    input: { file_path: filePath, content },
    content: `File created successfully at: ${filePath}`,
    toolUseResult: { type: "create", filePath, content, structuredPatch: [] },
  };
}

function makeTodo(ctx: ToolContext): Made {
  const todos = ["Read the reader", "Fix the offset bug", "Run tests ✅"].map(
    (content, i) => ({
      content,
      status: i < ctx.rng.int(0, 3) ? "completed" : "pending",
      activeForm: `Working on: ${content}`,
    }),
  );
  return {
    name: "TodoWrite",
    input: { todos },
    content:
      "Todos have been modified successfully. Ensure that you continue to use the todo list to track your progress. Please proceed with the current tasks if applicable",
    toolUseResult: { oldTodos: [], newTodos: todos },
  };
}

function makeAgent(ctx: ToolContext): Made {
  const agentId = `a${ctx.rng.hex(8)}`;
  const description = "Survey transcript readers";
  const prompt =
    "Find every place that reads the transcript and report how much of it is read.";
  return {
    name: "Agent",
    input: { description, prompt, subagent_type: "general-purpose" },
    content: [{
      type: "text",
      text:
        `Async agent launched successfully.\nagentId: ${agentId} (internal ID - do not mention to user. Use SendMessage with to: '${agentId}' to continue this agent.)\nThe agent is working in the background. You will be notified automatically when it completes.`,
    }],
    toolUseResult: {
      isAsync: true,
      status: "async_launched",
      agentId,
      description,
      prompt,
    },
    agentId,
  };
}

function makeMcpIssue(ctx: ToolContext): Made {
  const number = ctx.rng.int(100, 9999);
  const title = "Stop hook stalls on Windows 🪟";
  const blocks = [{
    type: "text",
    text: JSON.stringify({
      number,
      html_url: `https://github.com/acme/stall-watch/issues/${number}`,
      state: "open",
      title,
    }),
  }];
  return {
    name: "mcp__github__create_issue",
    input: {
      owner: "acme",
      repo: "stall-watch",
      title,
      body: "Seen with 2.1.231 — see log.",
    },
    content: blocks,
    toolUseResult: blocks,
  };
}

function makeMcpQuery(ctx: ToolContext): Made {
  const rng = ctx.rng;
  const input = {
    sql: "SELECT session_id, stalled_at FROM stalls ORDER BY stalled_at DESC",
  };
  const name = "mcp__plugin_acme_db-tools__query";
  if (rng.chance(0.03)) {
    const text =
      `Tool ${name} is still running after 120s and was moved to the background as task bg_${
        rng.hex(4)
      }.`;
    return { name, input, content: text, toolUseResult: text };
  }
  if (rng.chance(0.03)) return { name, input, content: [], toolUseResult: [] };
  const rows: string[] = ["session_id | stalled_at"];
  for (let i = rng.int(1, 200); i > 0; i--) {
    rows.push(
      `${rng.uuid()} | 2026-01-${String(rng.int(10, 28))}T0${
        rng.int(0, 9)
      }:00Z`,
    );
  }
  const blocks = [{ type: "text", text: rows.join("\n") }];
  return { name, input, content: blocks, toolUseResult: blocks };
}

function makeWebFetch(ctx: ToolContext): Made {
  const url = "https://docs.example.com/hooks";
  const result =
    "The page describes Stop hooks: exit 2 blocks and stderr is fed back — « très utile ».";
  return {
    name: "WebFetch",
    input: { url, prompt: "What does exit code 2 do for Stop hooks?" },
    content: result,
    toolUseResult: {
      bytes: ctx.rng.int(2000, 90_000),
      code: 200,
      codeText: "OK",
      result,
      durationMs: ctx.rng.int(200, 4000),
      url,
    },
  };
}
