/**
 * A stand-in `codex` for tests without the real one: `codex app-server`
 * speaking the JSON-RPC that stall-watch uses (`initialize`,
 * `hooks/list`, `config/batchWrite`), one JSON object per line on stdio,
 * as Codex 0.171.0 does (see `tests/codex_cli/` for the real one).
 *
 * It lists the Stop hooks of `$CODEX_HOME/hooks.json` and of
 * `<cwd>/.codex/hooks.json` (the latter only when `FAKE_CODEX_PROJECT` is
 * `trusted`; else it warns as Codex does), each with a hash of its
 * command and timeout, and trusts by the hashes written with
 * `config/batchWrite` to `$CODEX_HOME/fake-trust.json`. `FAKE_CODEX_MODE`
 * breaks it on purpose: `silent` (answers nothing), `garbage` (a line that
 * is not JSON), `error` (an error answer to `hooks/list`).
 *
 * {@link installFakeCodex} puts it on a PATH as an executable `codex`.
 *
 * @module
 */

import { fileURLToPath } from "node:url";

const SELF = fileURLToPath(import.meta.url);

/**
 * Writes an executable `codex` into `binDir` that runs this file with
 * Deno. Returns its path.
 */
export async function installFakeCodex(binDir: string): Promise<string> {
  const path = `${binDir}/codex`;
  await Deno.writeTextFile(
    path,
    `#!/bin/sh\nexec '${Deno.execPath()}' run --quiet --no-config -A '${SELF}' "$@"\n`,
    { mode: 0o755 },
  );
  return path;
}

async function hash(text: string): Promise<string> {
  const digest = await crypto.subtle.digest(
    "SHA-256",
    new TextEncoder().encode(text),
  );
  return "sha256:" +
    [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0"))
      .join("");
}

interface Hook {
  key: string;
  eventName: string;
  command: string;
  sourcePath: string;
  source: string;
  enabled: boolean;
  currentHash: string;
  trustStatus: string;
}

async function hooksOf(
  path: string,
  source: string,
  trust: Record<string, string>,
): Promise<Hook[]> {
  let parsed: { hooks?: { Stop?: { hooks?: Record<string, unknown>[] }[] } };
  try {
    parsed = JSON.parse(await Deno.readTextFile(path));
  } catch {
    return [];
  }
  const hooks: Hook[] = [];
  for (const [g, group] of (parsed.hooks?.Stop ?? []).entries()) {
    for (const [h, handler] of (group.hooks ?? []).entries()) {
      const key = `${path}:stop:${g}:${h}`;
      const currentHash = await hash(
        JSON.stringify([handler.command, handler.timeout ?? null]),
      );
      hooks.push({
        key,
        eventName: "stop",
        command: String(handler.command),
        sourcePath: path,
        source,
        enabled: true,
        currentHash,
        trustStatus: trust[key] === undefined
          ? "untrusted"
          : trust[key] === currentHash
          ? "trusted"
          : "modified",
      });
    }
  }
  return hooks;
}

async function main(): Promise<void> {
  if (Deno.args[0] !== "app-server") {
    console.log("codex-cli 0.0.0-fake");
    return;
  }
  const home = Deno.env.get("CODEX_HOME") ?? `${Deno.env.get("HOME")}/.codex`;
  const trustFile = `${home}/fake-trust.json`;
  const mode = Deno.env.get("FAKE_CODEX_MODE") ?? "";
  const out = (value: unknown) => console.log(JSON.stringify(value));
  let buffer = "";
  for await (
    const chunk of Deno.stdin.readable.pipeThrough(
      new TextDecoderStream(),
    )
  ) {
    buffer += chunk;
    for (let nl = buffer.indexOf("\n"); nl >= 0; nl = buffer.indexOf("\n")) {
      const message = JSON.parse(buffer.slice(0, nl));
      buffer = buffer.slice(nl + 1);
      if (mode === "silent" || message.id === undefined) continue;
      if (mode === "garbage") {
        console.log("this is not JSON");
        continue;
      }
      let trust: Record<string, string> = {};
      try {
        trust = JSON.parse(await Deno.readTextFile(trustFile));
      } catch { /* nothing trusted yet */ }
      switch (message.method) {
        case "initialize":
          out({ id: message.id, result: { codexHome: home } });
          break;
        case "hooks/list": {
          if (mode === "error") {
            out({
              id: message.id,
              error: { code: -32603, message: "fake failure\nsecond line" },
            });
            break;
          }
          const cwd = message.params.cwds[0];
          const hooks = await hooksOf(`${home}/hooks.json`, "user", trust);
          if (Deno.env.get("FAKE_CODEX_PROJECT") === "trusted") {
            hooks.push(
              ...await hooksOf(`${cwd}/.codex/hooks.json`, "project", trust),
            );
          } else {
            out({
              method: "configWarning",
              params: {
                summary:
                  `Project-local config, hooks, and exec policies are disabled in the following folders until the project is trusted, but skills still load.\n    1. ${cwd}/.codex\n`,
              },
            });
          }
          out({
            id: message.id,
            result: { data: [{ cwd, hooks, warnings: [], errors: [] }] },
          });
          break;
        }
        case "config/batchWrite": {
          for (const edit of message.params.edits) {
            for (const [key, value] of Object.entries(edit.value)) {
              trust[key] = (value as { trusted_hash: string }).trusted_hash;
            }
          }
          await Deno.writeTextFile(trustFile, JSON.stringify(trust));
          out({ id: message.id, result: { status: "ok" } });
          break;
        }
        default:
          out({
            id: message.id,
            error: { code: -32601, message: "no such method" },
          });
      }
    }
  }
}

if (import.meta.main) await main();
