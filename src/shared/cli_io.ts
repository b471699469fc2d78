/**
 * The process boundary the CLI talks through (the real one: `real_io.ts`).
 *
 * @module
 */

/** What `--color` takes, as in rg, gh and deno. */
export type ColorChoice = "auto" | "always" | "never";

/** Everything a command may read from or write to its environment. */
export interface CliIO {
  env: Readonly<Record<string, string>>;
  /** The directory the process started in; `.claude` is resolved against it. */
  cwd: string;
  /** Reads all of stdin, up to a limit; throws `InputError` beyond it. */
  readStdin(limitBytes: number): Promise<string>;
  stdinIsTerminal: boolean;
  /** `auto` when absent. */
  color?: ColorChoice;
  stdoutIsTerminal: boolean;
  stderrIsTerminal: boolean;
  writeStdout(text: string): void;
  writeStderr(text: string): void;
  now(): number;
  sleep(ms: number): Promise<void>;
  /** Path of the running executable (the deno binary when run from source). */
  execPath: string;
  /** URL of the entry module (`file:///.../main.ts` from source). */
  mainModule: string;
}
