/**
 * The one list of runtime permissions stall-watch runs with.
 *
 * `deno compile` bakes exactly these flags into the release binaries, the
 * `hook` and `demo` tasks pass them to `deno run`, and the end-to-end tests
 * start `main.ts` with them, so what is tested is what ships. Writes are
 * confined to `.claude` relative to the directory the process starts in;
 * nothing else may be added here (no network, no subprocesses, no FFI).
 */
export const HOOK_PERMISSION_FLAGS: readonly string[] = Object.freeze([
  "--allow-read",
  "--allow-write=.claude",
  "--allow-env",
  "--no-prompt",
]);
