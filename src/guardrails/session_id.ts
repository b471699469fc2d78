/**
 * Session ids as file names (state, lock, watch marker), by the rule the
 * sweeper recognises its own files by.
 *
 * @module
 */

import { isDeviceName } from "../shared/paths.ts";

/**
 * A session id fit for a file name: characters outside `[A-Za-z0-9._-]` become `_` (`../../etc`
 * cannot leave the state folder), a Windows device name (`CON.json` opens the console) gets a `_`.
 */
export function safeSessionId(sessionId: string): string {
  const safe = sessionId.replace(/[^A-Za-z0-9._-]/g, "_").slice(0, 128);
  if (safe === "" || /^\.+$/.test(safe)) return `session${safe.length}`;
  return isDeviceName(`${safe}.json`) ? `_${safe}` : safe;
}

/** The session a state file's name (`<id>.json`) is for, or `null` for a name no {@link safeSessionId} gives. */
export function sessionOfStateFile(name: string): string | null {
  if (!name.endsWith(".json")) return null;
  const id = name.slice(0, -".json".length);
  return safeSessionId(id) === id ? id : null;
}
