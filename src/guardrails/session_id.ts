/**
 * Session ids as file names: every per-session file stall-watch keeps
 * (state, lock, watch marker) is named by {@link safeSessionId}, and the
 * sweeper recognises its own files by the same rule.
 *
 * @module
 */

/**
 * A session id fit for a file name: characters outside `[A-Za-z0-9._-]`
 * become `_`, so `../../etc` cannot leave the state folder.
 */
export function safeSessionId(sessionId: string): string {
  const safe = sessionId.replace(/[^A-Za-z0-9._-]/g, "_").slice(0, 128);
  if (safe === "" || /^\.+$/.test(safe)) return `session${safe.length}`;
  return safe;
}
