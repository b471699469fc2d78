/**
 * Whether Codex will run our Stop hook, and trusting it. Codex runs a hook only once trusted (a
 * hash in `config.toml` `hooks.state`; an edited one is skipped silently), and a project's
 * `.codex/` only in a trusted project: both are asked of Codex, and trust written as its `/hooks`
 * screen does, so no guess of Codex's hashing is ever written.
 *
 * @module
 */

import { isPlainObject } from "../shared/plain_object.ts";
import { normalize } from "../shared/paths.ts";
import type { AppServerClient } from "./codex_app_server.ts";
import { CODEX_STOP_COMMAND } from "./codex_registration.ts";
import { ownCommandArgs } from "./hook_command.ts";

/** Codex's word for a hook's trust (`hooks/list` `trustStatus`). */
export type CodexTrustStatus = "trusted" | "untrusted" | "modified" | "managed";

/** One hook as Codex lists it. */
export interface ListedHook {
  /** `<source path>:<event>:<group>:<handler>`: its `hooks.state` key. */
  key: string;
  event: string;
  command: string;
  sourcePath: string;
  /** `user`, `project`, a plugin's... */
  source: string;
  enabled: boolean;
  currentHash: string;
  trustStatus: CodexTrustStatus | string;
}

/** What Codex lists for one folder. */
export interface HookListing {
  hooks: ListedHook[];
  /** Codex's `configWarning`s, e.g. a project's `.codex/` ignored until the project is trusted. */
  warnings: string[];
  /** Errors Codex reported for the folder's hook files. */
  errors: string[];
}

/** Asks Codex which hooks it would run in `cwd`. */
export async function listCodexHooks(
  client: AppServerClient,
  cwd: string,
): Promise<HookListing> {
  const result = await client.request("hooks/list", { cwds: [cwd] });
  const listing: HookListing = { hooks: [], warnings: [], errors: [] };
  const data = isPlainObject(result) && Array.isArray(result.data)
    ? result.data
    : [];
  for (const entry of data) {
    if (!isPlainObject(entry)) continue;
    for (const hook of Array.isArray(entry.hooks) ? entry.hooks : []) {
      const listed = listedHook(hook);
      if (listed) listing.hooks.push(listed);
    }
    listing.errors.push(...texts(entry.errors));
  }
  for (const { method, params } of client.notifications) {
    if (method !== "configWarning" || !isPlainObject(params)) continue;
    if (typeof params.summary === "string") {
      listing.warnings.push(params.summary);
    }
  }
  return listing;
}

function texts(value: unknown): string[] {
  if (!Array.isArray(value)) return [];
  return value.map((v) =>
    typeof v === "string"
      ? v
      : isPlainObject(v) && typeof v.message === "string"
      ? v.message
      : JSON.stringify(v)
  );
}

function listedHook(value: unknown): ListedHook | null {
  if (!isPlainObject(value)) return null;
  const str = (v: unknown) => typeof v === "string" ? v : "";
  if (str(value.key) === "") return null;
  return {
    key: str(value.key),
    event: str(value.eventName),
    command: str(value.command),
    sourcePath: str(value.sourcePath),
    source: str(value.source),
    enabled: value.enabled !== false,
    currentHash: str(value.currentHash),
    trustStatus: str(value.trustStatus),
  };
}

/** The listed hooks that are our Codex Stop hook in `hooksFile` (any file when null). */
export function ownListedHooks(
  listing: HookListing,
  knownPaths: readonly string[],
  hooksFile: string | null,
): ListedHook[] {
  return listing.hooks.filter((hook) => {
    if (hook.event.toLowerCase() !== "stop") return false;
    if (hooksFile !== null && !samePath(hook.sourcePath, hooksFile)) {
      return false;
    }
    const handler = { type: "command", command: hook.command };
    const args = ownCommandArgs(handler, knownPaths);
    return args?.length === 1 && args[0] === CODEX_STOP_COMMAND;
  });
}

function samePath(a: string, b: string): boolean {
  return normalize(a) === normalize(b);
}

/**
 * Trusts `hooks` (only ones recognised as our own) at their current hashes, as `/hooks` does: one
 * `config/batchWrite` upserting `hooks.state.<key>.trusted_hash` in the user's `config.toml`.
 */
export async function trustCodexHooks(
  client: AppServerClient,
  hooks: readonly ListedHook[],
): Promise<void> {
  if (hooks.length === 0) return;
  const value: Record<string, { trusted_hash: string }> = {};
  for (const hook of hooks) {
    value[hook.key] = { trusted_hash: hook.currentHash };
  }
  await client.request("config/batchWrite", {
    edits: [{ keyPath: "hooks.state", value, mergeStrategy: "upsert" }],
  });
}

/** Whether Codex's warnings say the project folder `cwd`'s `.codex` is ignored. */
export function projectIgnored(listing: HookListing, cwd: string): boolean {
  const dir = normalize(cwd);
  return listing.warnings.some((w) =>
    /until the project is trusted/.test(w) && w.includes(`${dir}/.codex`)
  );
}
