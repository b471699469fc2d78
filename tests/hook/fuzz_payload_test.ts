/**
 * Property-based tests of everything the hook takes from outside: the
 * payload on stdin, the environment, the config file and the transcript.
 * None of them is trusted. Whatever they hold, the hook answers allow,
 * block, or one line of bad input, and writes nothing outside `.claude`.
 *
 * Run longer with `STALL_WATCH_FUZZ_RUNS=2000 deno task test`.
 */

import assert from "node:assert/strict";
import fc from "fast-check";
import { join } from "node:path";
import { main } from "../../src/cli.ts";
import { InputError } from "../../src/shared/errors.ts";
import { readStopPayload } from "../../src/hook/_hook_input.ts";
import { loadCases, payloadFor } from "../support/cases.ts";
import { fakeIO } from "../support/fake_io.ts";
import {
  applyMutations,
  type FixtureTranscript,
  fixtureTranscripts,
  fuzzParameters,
  type Mutation,
  mutations,
} from "../support/fuzz.ts";
import { tempProject } from "../support/temp_project.ts";
import { snapshotTree } from "../support/tree_snapshot.ts";

/** One hook run, in process, must finish well within this. */
const RUN_BOUND_MS = 5000;

const PAYLOAD_FIELDS = [
  "session_id",
  "transcript_path",
  "cwd",
  "hook_event_name",
  "stop_hook_active",
  "prompt_id",
  "last_assistant_message",
  "background_tasks",
  "agent_transcript_path",
  "agent_type",
] as const;

/** Strings that have broken programs before. */
const hostileString: fc.Arbitrary<string> = fc.oneof(
  fc.string({ unit: "binary", maxLength: 40 }),
  fc.constantFrom(
    "",
    " ",
    "\0",
    "a\0b",
    "line\nbreak",
    "../../../../etc/passwd",
    "/dev/zero",
    "/",
    ".",
    "SubagentStop",
    "Stop",
    "\u202e\ufeff",
    "toolu_01febJA2HSNq4ucUzZdf1fiM",
  ),
  fc.integer({ min: 1000, max: 200_000 }).map((n) => "x".repeat(n)),
);

/** A value nested `depth` levels deep, written out by {@link toText}. */
class Deep {
  constructor(readonly depth: number) {}
  toJSON(): string {
    return `@@deep:${this.depth}@@`;
  }
}

/** JSON text of a payload; `Deep` values become real nesting (which JSON.stringify cannot write). */
function toText(payload: unknown): string {
  return JSON.stringify(payload).replace(
    /"@@deep:(\d+)@@"/g,
    (_, d) => "[".repeat(Number(d)) + "]".repeat(Number(d)),
  );
}

const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  hostileString,
  fc.jsonValue({ maxDepth: 3 }),
  fc.integer({ min: 1000, max: 100_000 }).map((d) => new Deep(d)),
);

const realPayloads = loadCases().map((c) =>
  payloadFor(c, "fuzz", "/home/dev/project")
);

/** A real payload with fields replaced, retyped or removed. */
const mutatedPayload = fc.record({
  base: fc.constantFrom(...realPayloads),
  set: fc.dictionary(fc.constantFrom(...PAYLOAD_FIELDS), hostileValue, {
    maxKeys: 3,
  }),
  drop: fc.subarray([...PAYLOAD_FIELDS], { maxLength: 2 }),
}).map(({ base, set, drop }) => {
  const payload: Record<string, unknown> = { ...base, ...set };
  for (const field of drop) delete payload[field];
  return payload;
});

/** Any stdin text: random, random JSON, damaged real payloads, deep, huge. */
const payloadText: fc.Arbitrary<string> = fc.oneof(
  fc.string({ unit: "binary", maxLength: 200 }),
  fc.uint8Array({ maxLength: 200 }).map((b) => new TextDecoder().decode(b)),
  fc.json({ maxDepth: 4 }),
  { weight: 4, arbitrary: mutatedPayload.map(toText) },
  fc.integer({ min: 1, max: 200_000 }).map((d) =>
    `{"transcript_path":"/t","x":${"[".repeat(d)}${"]".repeat(d)}}`
  ),
  fc.integer({ min: 1, max: 200_000 }).map((d) => "[{".repeat(d)),
);

Deno.test("readStopPayload() returns a well-typed input or throws a one-line InputError, for any text", () => {
  fc.assert(
    fc.property(payloadText, (text) => {
      let input;
      try {
        input = readStopPayload(text).input();
      } catch (error) {
        assert.ok(error instanceof InputError, `threw ${error}`);
        assert.ok(!error.message.includes("\n"), "one line");
        assert.match(error.message, /^Cannot parse hook input: /);
        assert.ok(error.message.length < 300, "short enough to read");
        return;
      }
      const payload = JSON.parse(text);
      assert.equal(input.transcriptPath, payload.transcript_path);
      assert.ok(input.transcriptPath.trim() !== "");
      assert.ok(!input.transcriptPath.includes("\0"));
      assert.equal(
        input.isSubagent,
        payload.hook_event_name === "SubagentStop",
      );
      assert.equal(input.stopHookActive, payload.stop_hook_active === true);
      if (!input.isSubagent) assert.equal(input.scanPath, input.transcriptPath);
      for (const value of [input.sessionId, input.hookEventName, input.cwd]) {
        assert.equal(typeof value, "string");
      }
      for (const task of input.backgroundTasks) {
        for (const field of Object.values(task)) {
          assert.equal(typeof field, "string");
        }
      }
      assert.deepEqual(readStopPayload(text).input(), input, "deterministic");
    }),
    fuzzParameters(400),
  );
});

interface PayloadFields {
  base: Record<string, unknown>;
  set: Record<string, unknown>;
  /** Where transcript_path points: the transcript, or somewhere hostile. */
  path: string;
}

interface Run {
  /** A damaged fixture, or no transcript file at all. */
  transcript: { fixture: FixtureTranscript; mutations: Mutation[] } | null;
  fields: PayloadFields;
  env: Record<string, string>;
  config: string | null;
}

/** The stdin text of a run, once the temp paths are known. */
function payloadOf(
  fields: PayloadFields,
  transcriptPath: string,
  root: string,
): string {
  const path = fields.path === "transcript"
    ? transcriptPath
    : fields.path.replace("@ROOT", root)
      .replace("@OUTSIDE", join(root, "outside"))
      .replace("@LONG", join(root, "x/".repeat(50_000)));
  const payload: Record<string, unknown> = {
    ...fields.base,
    transcript_path: path,
    ...fields.set,
  };
  if (payload.agent_transcript_path !== undefined) {
    payload.agent_transcript_path = transcriptPath;
  }
  return toText(payload);
}

const envValues: Record<string, fc.Arbitrary<string>> = {
  STALL_WATCH_OUTPUT: fc.constantFrom("json", "context", "stderr", "xml", ""),
  STALL_WATCH_MAX_RETRIES: fc.constantFrom(
    "0",
    "1",
    "7",
    "8",
    "-1",
    "1e9",
    "x",
  ),
  STALL_WATCH_COOLDOWN_SECONDS: fc.constantFrom("0", "5", "-3", "NaN"),
  STALL_WATCH_DISABLED: fc.constantFrom("1", "0", "off", "yes"),
  STALL_WATCH_STOP_HOOK_ACTIVE: fc.constantFrom("check", "allow", "maybe"),
  STALL_WATCH_LAG_WAIT_MS: fc.constantFrom("0", "5000", "99999", "soon"),
  // Paths, inside and outside .claude, absolute and escaping.
  STALL_WATCH_STATE_DIR: fc.constantFrom(
    ".claude/stall_watch",
    ".claude",
    ".claude/a/b",
    "../outside",
    ".claude/../../outside",
    "@OUTSIDE",
    "",
  ),
  STALL_WATCH_LOG_FILE: fc.constantFrom(
    ".claude/events.jsonl",
    ".claude",
    ".claude/stall_watch",
    "../outside/events.jsonl",
    "@OUTSIDE/events.jsonl",
    ".claude/../events.jsonl",
  ),
  STALL_WATCH_CONFIG: fc.constantFrom(
    "/dev/zero",
    "@OUTSIDE/keep.txt",
    "@OUTSIDE",
    ".claude/missing.jsonc",
  ),
  STALL_WATCH_KILL_SWITCH_FILE: fc.constantFrom("/dev/zero", "@OUTSIDE"),
};

const hostileEnv = fc.subarray(Object.keys(envValues), { maxLength: 4 })
  .chain((names) =>
    fc.record(
      Object.fromEntries(
        names.map((n) => [n, envValues[n] as fc.Arbitrary<string>]),
      ),
    )
  );

const configText: fc.Arbitrary<string | null> = fc.option(
  fc.oneof(
    fc.dictionary(
      fc.constantFrom(
        "max_retries",
        "cooldown_seconds",
        "kill_switch",
        "output",
        "state_dir",
        "event_log",
        "recovery",
        "lag_wait_ms",
        "unknown",
      ),
      fc.jsonValue({ maxDepth: 2 }),
      { maxKeys: 4 },
    ).map((o) => JSON.stringify(o)),
    fc.string({ unit: "binary", maxLength: 100 }),
    fc.integer({ min: 1, max: 50_000 }).map((d) =>
      `{"event_log": ${"[".repeat(d)}${"]".repeat(d)}}`
    ),
  ),
  { nil: null },
);

const hostileRun: fc.Arbitrary<Run> = fc.record({
  transcript: fc.option(
    fc.record({
      fixture: fc.constantFrom(...fixtureTranscripts(100_000)),
      mutations,
    }),
    { nil: null },
  ),
  fields: fc.record({
    base: fc.constantFrom(...realPayloads),
    set: fc.dictionary(fc.constantFrom(...PAYLOAD_FIELDS), hostileValue, {
      maxKeys: 2,
    }),
    path: fc.constantFrom(
      "transcript",
      "transcript",
      "transcript",
      "@ROOT",
      "/dev/zero",
      "@OUTSIDE/missing.jsonl",
      "@LONG", // far beyond PATH_MAX
    ),
  }),
  env: hostileEnv,
  config: configText,
});

Deno.test("the hook answers allow, block or one line of bad input for any payload, env, config and transcript, and writes only inside .claude", async () => {
  await using temp = await tempProject();
  const root = temp.dir;
  const project = join(root, "project");
  const outside = join(root, "outside");
  await Deno.mkdir(project);
  await Deno.mkdir(outside);
  await Deno.writeTextFile(join(outside, "keep.txt"), '{"max_retries": 1}');
  const transcriptPath = join(project, "transcript.jsonl");
  const configPath = join(project, ".claude/stall-watch.jsonc");
  const outsideClaude = (rel: string) =>
    rel === "project/.claude" || rel.startsWith("project/.claude/");
  await fc.assert(
    fc.asyncProperty(hostileRun, async (run) => {
      await Deno.remove(transcriptPath).catch(() => {});
      if (run.transcript) {
        const { fixture, mutations } = run.transcript;
        await Deno.writeFile(
          transcriptPath,
          applyMutations(fixture.bytes, mutations),
        );
      }
      await Deno.remove(configPath).catch(() => {});
      if (run.config !== null) {
        await Deno.mkdir(join(project, ".claude"), { recursive: true });
        await Deno.writeTextFile(configPath, run.config);
      }
      const env = Object.fromEntries(
        Object.entries(run.env).map((
          [k, v],
        ) => [k, v.replace("@OUTSIDE", outside)]),
      );
      const before = await snapshotTree(root, outsideClaude);
      const io = fakeIO({
        cwd: project,
        env,
        stdin: payloadOf(run.fields, transcriptPath, root),
      });
      const started = performance.now();
      const code = await main([], io);
      const elapsed = performance.now() - started;
      const stdout = io.stdout.join("");
      const stderr = io.stderr.join("");
      const context = `exit ${code}\nstdout: ${stdout.slice(0, 300)}\nstderr: ${
        stderr.slice(0, 600)
      }`;

      assert.ok(elapsed < RUN_BOUND_MS, `took ${elapsed.toFixed(0)} ms`);
      assert.ok([0, 1, 2].includes(code), context);
      assert.doesNotMatch(stderr, /internal error|\n\s+at /, context);
      if (code === 1) {
        assert.equal(stdout, "", context);
        assert.match(stderr, /^stall-watch: [^\n]+\n$/, context);
        assert.ok(stderr.length < 1100, "a line a person can read");
      } else if (code === 2) {
        assert.equal(stdout, "", context);
        assert.match(stderr, /^stall_watch: /, context);
        assert.match(stderr, /\nstall_watch recovery: /, context);
      } else {
        for (const line of stderr.split("\n").filter((l) => l !== "")) {
          assert.match(line, /^stall_watch: /, context);
        }
        if (stdout !== "") {
          const json = JSON.parse(stdout);
          for (const key of Object.keys(json)) {
            assert.ok(
              ["decision", "reason", "systemMessage", "hookSpecificOutput"]
                .includes(key),
              context,
            );
          }
          // A block in a JSON mode: the prompt alone for the model, the
          // report lines (with the transcript path) for the user.
          const prompt = json.decision !== undefined
            ? json.reason
            : json.hookSpecificOutput?.additionalContext;
          if (json.decision !== undefined) {
            assert.equal(json.decision, "block");
          }
          if (json.hookSpecificOutput !== undefined) {
            assert.ok(
              ["Stop", "SubagentStop"].includes(
                json.hookSpecificOutput.hookEventName,
              ),
              context,
            );
          }
          if (prompt !== undefined) {
            assert.equal(typeof prompt, "string", context);
            assert.doesNotMatch(prompt, /^stall_watch: \d/m, context);
            assert.doesNotMatch(prompt, /transcript\.jsonl/, context);
            assert.match(json.systemMessage, /^stall_watch: \d/, context);
          }
        }
      }
      assert.deepEqual(
        await snapshotTree(root, outsideClaude),
        before,
        "nothing changed outside .claude",
      );
    }),
    fuzzParameters(120),
  );
});
