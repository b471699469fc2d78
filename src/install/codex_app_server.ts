/**
 * A short conversation with `codex app-server` (JSON-RPC, an object a line on stdio), with a
 * deadline, the server stopped after; no `--allow-run` or no `codex` on the PATH is an
 * {@link AppServerUnavailable}, never a throw.
 *
 * @module
 */

import { isPlainObject } from "../shared/plain_object.ts";
import { clipMiddle } from "../shared/errors.ts";
import { isInside, joinPath, POSIX, WINDOWS } from "../shared/paths.ts";
import { VERSION } from "../shared/version.ts";

/** How to start the server. */
export interface AppServerOptions {
  /** The `codex` program (default: found on the PATH outside the project). */
  program?: string;
  cwd: string;
  /** Its whole environment (`CODEX_HOME`, `HOME`, `PATH`...). */
  env: Readonly<Record<string, string>>;
  timeoutMs: number;
}

/** Why no conversation could be had. */
export interface AppServerUnavailable {
  unavailable: "absent" | "not_permitted" | "failed";
  why: string;
}

/** A notification the server sent (a config warning, a status). */
export interface AppServerNotification {
  method: string;
  params: unknown;
}

/** An open conversation. */
export interface AppServerClient {
  /** Sends a request and waits for its answer's `result`. */
  request(method: string, params: unknown): Promise<unknown>;
  readonly notifications: readonly AppServerNotification[];
}

/** An error answer, a broken line, the deadline: one line each. */
export class AppServerError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "AppServerError";
  }
}

/** The longest line read from the server; longer ones end the conversation. */
const MAX_LINE_CHARS = 8 * 1024 * 1024;

/**
 * Runs `fn` in a conversation with a started `codex app-server`, or says why none could start.
 *
 * @throws {AppServerError} On an error answer, a line not JSON, or the deadline.
 */
export async function withCodexAppServer<T>(
  options: AppServerOptions,
  version: string,
  fn: (client: AppServerClient) => Promise<T>,
): Promise<T | AppServerUnavailable> {
  const found = options.program === undefined
    ? findOnPath("codex", options.env, options.cwd)
    : { path: options.program };
  const program = found.path;
  if (program === null) return { unavailable: "absent", why: found.why };
  let child: Deno.ChildProcess;
  try {
    child = new Deno.Command(program, {
      args: ["app-server"],
      cwd: options.cwd,
      clearEnv: true,
      env: { ...options.env },
      stdin: "piped",
      stdout: "piped",
      stderr: "null",
    }).spawn();
  } catch (error) {
    return unavailable(program, error);
  }
  const conversation = new Conversation(child);
  const late = new AppServerError(
    `codex app-server did not answer within ${
      Math.round(options.timeoutMs / 1000)
    } s`,
  );
  const deadline = new Promise<never>((_, reject) => {
    conversation.timer = setTimeout(() => reject(late), options.timeoutMs);
  });
  try {
    return await Promise.race([
      (async () => {
        // The client name Codex records for this conversation.
        const clientInfo = {
          name: "stall-watch",
          title: "stall-watch",
          version,
        };
        await conversation.request("initialize", { clientInfo });
        conversation.notify("initialized");
        return await fn(conversation);
      })(),
      deadline,
    ]);
  } finally {
    await conversation.close();
  }
}

/** How long install and doctor wait for `codex app-server`. */
const APP_SERVER_TIMEOUT_MS = 30_000;

/** {@link withCodexAppServer} in `io`'s folder and environment, as install and doctor ask. */
export function askCodex<T>(
  io: { cwd: string; env: Readonly<Record<string, string>> },
  program: string | undefined,
  fn: (client: AppServerClient) => Promise<T>,
): Promise<T | AppServerUnavailable> {
  const { cwd, env } = io;
  const timeoutMs = APP_SERVER_TIMEOUT_MS;
  const options = { ...(program ? { program } : {}), cwd, env, timeoutMs };
  return withCodexAppServer(options, VERSION, fn);
}

/** Where {@link findOnPath} found a program, or why it found none. */
export type PathLookup =
  | { path: string }
  | { path: null; why: string };

/**
 * The first `name` file (`.exe`, `.cmd` first on Windows) in an absolute PATH folder outside
 * `projectDir` (a relative entry means the start directory, which a clone controls), to be started
 * by this path, never by name (Windows looks in the current directory too).
 */
function findOnPath(
  name: string,
  env: Readonly<Record<string, string>>,
  projectDir: string,
): PathLookup {
  const windows = Deno.build.os === "windows";
  const style = windows ? WINDOWS : POSIX;
  const names = windows ? [`${name}.exe`, `${name}.cmd`, name] : [name];
  const project = [projectDir, realPathOrNull(projectDir)];
  let passedOver: string | null = null;
  for (const dir of pathEntries(env, windows)) {
    const absolute = windows
      ? /^(?:[A-Za-z]:[\\/]|[\\/]{2}[^\\/])/.test(dir)
      : dir.startsWith("/");
    const real = absolute ? realPathOrNull(dir) : null;
    const inProject = absolute && project.some((root) =>
      root !== null &&
      [dir, real].some((d) => d !== null && isInside(root, d, style))
    );
    for (const file of names) {
      const candidate = joinPath(style, dir, file);
      const searched = absolute && !inProject;
      let there = false;
      try {
        // One passed over is only named: a link there is not followed.
        const info = searched
          ? Deno.statSync(candidate)
          : Deno.lstatSync(candidate);
        there = info.isFile || (!searched && info.isSymlink);
      } catch { /* not here */ }
      if (!there) continue;
      if (searched) return { path: candidate };
      passedOver ??= candidate;
    }
  }
  return {
    path: null,
    why: passedOver === null
      ? `${name} is not on the PATH`
      : `${name} is not on the PATH outside the project (${passedOver} is passed over: stall-watch runs no program from a relative PATH entry or from inside the project)`,
  };
}

/** The PATH's folders, in order (`Path` and any spelling on Windows). */
function pathEntries(
  env: Readonly<Record<string, string>>,
  windows: boolean,
): string[] {
  const key = windows
    ? Object.keys(env).find((k) => k.toUpperCase() === "PATH")
    : "PATH";
  const value = key === undefined ? "" : env[key] ?? "";
  // An empty entry is the current directory to a POSIX shell: kept, to be passed over by name.
  return value.split(windows ? ";" : ":").map((dir) => dir === "" ? "." : dir);
}

function realPathOrNull(path: string): string | null {
  try {
    return Deno.realPathSync(path);
  } catch {
    return null;
  }
}

function unavailable(program: string, error: unknown): AppServerUnavailable {
  if (error instanceof Deno.errors.NotFound) {
    return { unavailable: "absent", why: `${program} is not on the PATH` };
  }
  const { NotCapable, PermissionDenied } = Deno.errors;
  if (error instanceof NotCapable || error instanceof PermissionDenied) {
    const why =
      `stall-watch may not start ${program} here (no permission to run programs)`;
    return { unavailable: "not_permitted", why };
  }
  const reason = error instanceof Error
    ? error.message.split("\n")[0]
    : String(error);
  return { unavailable: "failed", why: `cannot start ${program}: ${reason}` };
}

/** Whether a value is {@link AppServerUnavailable}. */
export function isUnavailable(value: unknown): value is AppServerUnavailable {
  return isPlainObject(value) && typeof value.unavailable === "string" &&
    typeof value.why === "string";
}

/** One running server: writes requests, reads answers by id. */
class Conversation implements AppServerClient {
  timer: ReturnType<typeof setTimeout> | undefined;
  readonly notifications: AppServerNotification[] = [];
  #child: Deno.ChildProcess;
  /** Lines queued for the server's stdin (a stream piped into it). */
  #input!: ReadableStreamDefaultController<Uint8Array>;
  #piping: Promise<void>;
  #inputClosed = false;
  #pending = new Map<
    number,
    { resolve: (value: unknown) => void; reject: (error: Error) => void }
  >();
  #nextId = 1;
  #failure: Error | null = null;
  #reading: Promise<void>;

  constructor(child: Deno.ChildProcess) {
    this.#child = child;
    this.#piping = new ReadableStream<Uint8Array>({
      start: (controller) => {
        this.#input = controller;
      },
    }).pipeTo(child.stdin).catch(() => {
      this.#inputClosed = true;
    });
    this.#reading = this.#read();
  }

  async request(method: string, params: unknown): Promise<unknown> {
    if (this.#failure) throw this.#failure;
    const id = this.#nextId++;
    const answer = new Promise<unknown>((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
    });
    this.#send({ id, method, params });
    return await answer;
  }

  notify(method: string): void {
    this.#send({ method });
  }

  #send(message: Record<string, unknown>): void {
    if (this.#inputClosed) {
      throw this.#fail(
        new AppServerError("codex app-server stopped reading its input"),
      );
    }
    this.#input.enqueue(
      new TextEncoder().encode(JSON.stringify(message) + "\n"),
    );
  }

  async #read(): Promise<void> {
    let buffer = "";
    try {
      for await (
        const chunk of this.#child.stdout.pipeThrough(new TextDecoderStream())
      ) {
        const lines = (buffer + chunk).split("\n");
        buffer = lines.pop() ?? "";
        for (const line of lines) this.#handle(line);
        if (buffer.length > MAX_LINE_CHARS) {
          throw new AppServerError("codex app-server sent an endless line");
        }
      }
      this.#fail(new AppServerError("codex app-server ended the conversation"));
    } catch (error) {
      this.#fail(
        error instanceof AppServerError
          ? error
          : new AppServerError(`codex app-server: ${String(error)}`),
      );
    }
  }

  #handle(line: string): void {
    if (line.trim() === "") return;
    let message: unknown;
    try {
      message = JSON.parse(line);
    } catch {
      throw new AppServerError("codex app-server sent a line that is not JSON");
    }
    if (!isPlainObject(message)) return;
    const { id, method } = message;
    if (typeof method === "string") {
      // A notification, or a request of the server's (left unanswered).
      if (id === undefined && this.notifications.length < 100) {
        this.notifications.push({ method, params: message.params });
      }
      return;
    }
    if (typeof id !== "number") return;
    const pending = this.#pending.get(id);
    if (!pending) return;
    this.#pending.delete(id);
    if (isPlainObject(message.error)) {
      // Codex's words may quote a project's file: one line, capped.
      const text = typeof message.error.message === "string"
        ? clipMiddle(message.error.message.split("\n")[0] ?? "", 200)
        : "an error";
      pending.reject(new AppServerError(`codex app-server: ${text}`));
    } else {
      pending.resolve(message.result);
    }
  }

  #fail(error: Error): Error {
    this.#failure ??= error;
    for (const pending of this.#pending.values()) pending.reject(this.#failure);
    this.#pending.clear();
    return this.#failure;
  }

  async close(): Promise<void> {
    clearTimeout(this.timer);
    this.#fail(new AppServerError("the conversation is over"));
    try {
      this.#input.close();
    } catch { /* closed already */ }
    await this.#piping;
    // It exits once its input ends; a server that lingers is stopped.
    const stop = setTimeout(() => {
      try {
        this.#child.kill("SIGKILL");
      } catch { /* gone */ }
    }, 2_000);
    await this.#child.status;
    clearTimeout(stop);
    await this.#reading;
  }
}
