/**
 * The one list of runtime permissions: baked into the release binaries by
 * `deno compile`, passed to `deno run` by the tasks and the end-to-end tests,
 * so what is tested ships. Writes only to `.claude` and `.codex` of the start
 * directory; the one program is `codex` (`codex app-server`, for hook trust);
 * nothing else (no network, no FFI). Deno prints a line when `codex` is not
 * on the PATH at start: every run passes `--quiet` (`.github/scripts/compile.ts` too).
 */
export const HOOK_PERMISSION_FLAGS: readonly string[] = Object.freeze([
  "--allow-read",
  "--allow-write=.claude,.codex",
  "--allow-env",
  "--allow-run=codex",
  "--no-prompt",
]);

/**
 * The lists earlier releases ran with (0.1: `.claude` only, no program),
 * as a handler registered from source spells them: still recognised as
 * stall-watch's own, so `install` updates such a handler instead of adding
 * a second one.
 */
export const EARLIER_PERMISSION_FLAGS: readonly (readonly string[])[] = Object
  .freeze([
    Object.freeze([
      "--allow-read",
      "--allow-write=.claude",
      "--allow-env",
      "--no-prompt",
    ]),
  ]);
