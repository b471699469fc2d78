/**
 * Writes `fixtures/real/`: transcripts real Claude Code wrote in the tier's
 * scenarios, as the hook saw them (or, with no hook run, as Claude Code left
 * them). Temp paths become `<WORK>`, the project slug `<PROJECT-SLUG>`, the
 * hook command `<HOOK-COMMAND>`; long strings in metadata and attachment
 * lines are cut; conversation entries, line count and order are kept.
 *
 * Run: `deno task fixtures:claude` (needs the pinned Claude Code; see
 * `support/claude_install.ts`).
 *
 * @module
 */

import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { findOrInstallClaude } from "./support/claude_install.ts";
import {
  empty,
  httpError,
  queue,
  type Script,
  text,
  toolCall,
} from "./support/fake_api.ts";
import { withClaudeSession } from "./support/session.ts";

const OUT = fileURLToPath(new URL("../../fixtures/real/", import.meta.url));

/** Strings longer than this in non-conversation lines are cut. */
const CUT_AT = 2000;

interface Capture {
  name: string;
  prompt: string;
  tool: string;
  script: Script;
  /** Which file: the transcript at the first Stop, or as left at the end. */
  at: "first-stop" | "end";
}

const CAPTURES: Capture[] = [
  {
    name: "real_empty_mcp_result_no_followup.jsonl",
    prompt: "use mcp__stub__empty",
    tool: "mcp__stub__empty",
    script: queue([toolCall("mcp__stub__empty"), empty(), empty(), text("ok")]),
    at: "first-stop",
  },
  {
    name: "real_blank_mcp_result_no_followup.jsonl",
    prompt: "use mcp__stub__blank",
    tool: "mcp__stub__blank",
    script: queue([toolCall("mcp__stub__blank"), empty(), empty(), text("ok")]),
    at: "first-stop",
  },
  {
    name: "real_long_error_result_answered.jsonl",
    prompt: "use mcp__stub__fail",
    tool: "mcp__stub__fail",
    script: queue([
      toolCall("mcp__stub__fail", { size: 70 * 1024, char: "\u001b" }),
      text("The tool failed; here is what it said."),
      text("ok"),
    ]),
    at: "first-stop",
  },
  {
    name: "real_api_error_after_tool_result.jsonl",
    prompt: "use mcp__stub__echo",
    tool: "mcp__stub__echo",
    script: queue([
      toolCall("mcp__stub__echo", { text: "forty-two" }),
      httpError(500),
      httpError(500),
    ]),
    at: "end",
  },
];

function cutStrings(value: unknown): unknown {
  if (typeof value === "string") {
    return value.length > CUT_AT
      ? `${value.slice(0, 200)}…<cut ${value.length - 200} chars>`
      : value;
  }
  if (Array.isArray(value)) return value.map(cutStrings);
  if (value && typeof value === "object") {
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [k, cutStrings(v)]),
    );
  }
  return value;
}

/** Cuts long strings of lines that are not user or assistant entries. */
function cutLine(line: string): string {
  if (line === "") return line;
  const entry = JSON.parse(line);
  if (entry.type === "user" || entry.type === "assistant") return line;
  return JSON.stringify(cutStrings(entry));
}

function placeholders(
  text: string,
  root: string,
  project: string,
  hookCommand: string,
): string {
  const slug = project.replaceAll(/[^A-Za-z0-9]/g, "-");
  return text
    .replaceAll(hookCommand, "<HOOK-COMMAND>")
    .replaceAll(slug, "<PROJECT-SLUG>")
    .replaceAll(root, "<WORK>");
}

const claude = await findOrInstallClaude();
if (!claude) Deno.exit(1);
await Deno.mkdir(OUT, { recursive: true });
for (const capture of CAPTURES) {
  await withClaudeSession(
    { claude, script: capture.script },
    async (session) => {
      const run = await session.runPrint(capture.prompt, {
        allowedTools: [capture.tool],
        env: { STALL_WATCH_TIER_SNAPSHOTS: "1" },
      });
      let transcript: string | undefined;
      if (capture.at === "first-stop") {
        const stop = (await session.hookRuns()).find((r) => r.event === "Stop");
        transcript = stop?.transcriptAtStart;
      } else {
        const [main] = await session.transcripts();
        if (main) transcript = await Deno.readTextFile(main);
      }
      if (transcript === undefined) {
        throw new Error(
          `${capture.name}: no transcript (claude exited ${run.code})`,
        );
      }
      const cut = transcript.split("\n").map(cutLine).join("\n");
      await Deno.writeTextFile(
        join(OUT, capture.name),
        placeholders(cut, session.root, session.project, session.hookCommand),
      );
      console.log(`${capture.name}: ${cut.split("\n").length - 1} lines`);
    },
  );
}
