/**
 * How long the real-client tier waits before it calls a run failed.
 *
 * Every wait in the tier is for an event: a line on screen, a file, a hook
 * run, a request to the fake API, a process that ends. These bounds only
 * turn a hang into a failure, so they are generous: on a loaded machine (CI
 * runs two test files side by side on two cores, and load checks add busy
 * loops) a Node.js release of Claude Code took over a minute for a `-p`
 * session that takes ten seconds on an idle one.
 *
 * @module
 */

/** Longest wait for one event (a screen, a file, a hook run). */
export const EVENT_WAIT_MS = 180_000;

/** Longest `claude -p` run, start to exit. */
export const RUN_WAIT_MS = 300_000;
