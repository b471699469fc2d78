/**
 * The one list of runtime permissions, for the release binaries and every
 * `deno run`, so what is tested ships: `codex` is run for hook trust; with
 * `--quiet`, as Deno prints a line when it is not on the PATH.
 */
export const HOOK_PERMISSION_FLAGS: readonly string[] = Object.freeze([
  "--allow-read",
  "--allow-write=.claude,.codex",
  "--allow-env",
  "--allow-run=codex",
  "--no-prompt",
]);

/** The lists earlier releases ran with (0.1), recognised so `install` updates such a handler. */
export const EARLIER_PERMISSION_FLAGS: readonly (readonly string[])[] = Object
  .freeze([
    Object.freeze([
      "--allow-read",
      "--allow-write=.claude",
      "--allow-env",
      "--no-prompt",
    ]),
  ]);
