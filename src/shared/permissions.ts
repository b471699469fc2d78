/**
 * The one list of runtime permissions stall-watch runs with.
 *
 * `deno compile` bakes exactly these flags into the release binaries, the
 * `hook` and `demo` tasks pass them to `deno run`, and the end-to-end tests
 * start `main.ts` with them, so what is tested is what ships. Writes are
 * confined to the two clients' folders of the directory the process starts
 * in, `.claude` (Claude Code) and `.codex` (OpenAI's Codex CLI), and the
 * one program it may start is `codex` (`install --codex` and `doctor` ask
 * `codex app-server` whether Codex trusts the hook); nothing else may be
 * added here (no network, no other program, no FFI).
 *
 * Deno resolves `--allow-run=codex` on the PATH when the process starts
 * and, at its default log level, prints one line when it is not there:
 * every `deno run` of stall-watch passes `--quiet` and the compiled binary
 * is built with it (`.github/scripts/compile.ts`), so no stop says so.
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
