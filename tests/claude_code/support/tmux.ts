/**
 * Runs a program in a detached tmux pane on a private socket, for the
 * interactive Claude Code scenarios: type into it, read the screen, wait
 * for text, and end it. Every wait is bounded.
 *
 * @module
 */

import { join } from "node:path";
import { EVENT_WAIT_MS } from "./patience.ts";

/** A program running in a tmux pane. */
export interface TmuxPane {
  /** Types `text` literally (no key names). */
  type(text: string): Promise<void>;
  /**
   * Types `text`, waits until the screen shows it (keys sent before the
   * program reads them are not lost, but an echo proves it), then Enter.
   */
  submit(text: string): Promise<void>;
  /** Sends tmux key names (`Enter`, `Escape`, `C-c`, ...). */
  keys(...names: string[]): Promise<void>;
  /** The visible screen, as plain text. */
  screen(): Promise<string>;
  /**
   * Waits until the screen matches `pattern`; throws with the last screen
   * after `timeoutMs`.
   */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<string>;
  /**
   * Waits until the screen stops changing (the same for a second), and
   * returns it; throws after `timeoutMs`. For releases that print no line
   * marking the end of a turn.
   */
  settled(timeoutMs?: number): Promise<string>;
  /**
   * Whether any screen since the pane started showed `text`: the pane is
   * captured in the background every 100 ms, so a notice Claude Code shows
   * for a few seconds (a status line) counts however late the test looks.
   */
  everShown(text: string): Promise<boolean>;
  /** True while the program still runs in the pane. */
  alive(): Promise<boolean>;
  /** Ends the tmux server and everything in it. */
  close(): Promise<void>;
}

/** Options of {@link startTmux}. */
export interface TmuxOptions {
  /** Folder for the socket (the scenario's temp folder). */
  dir: string;
  cwd: string;
  /** The program's whole environment (nothing else is inherited). */
  env: Record<string, string>;
  width?: number;
  height?: number;
  /**
   * Whether the program acted on a submitted text (the fake API got it): the
   * proof a submit waits for. Without it, or for a `/` command, the screen
   * is the proof.
   */
  received?: (text: string) => boolean;
}

async function tmux(
  socket: string,
  env: Record<string, string>,
  args: string[],
): Promise<string> {
  const out = await new Deno.Command("tmux", {
    args: ["-S", socket, ...args],
    clearEnv: true,
    env,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    signal: AbortSignal.timeout(10_000),
  }).output();
  if (!out.success) {
    throw new Error(
      `tmux ${args[0]} failed: ${new TextDecoder().decode(out.stderr).trim()}`,
    );
  }
  return new TextDecoder().decode(out.stdout);
}

function processAlive(pid: number): boolean {
  try {
    Deno.kill(pid, "SIGCONT"); // harmless; fails once the process is gone
    return true;
  } catch {
    return false;
  }
}

/** True when a `tmux` program runs here. */
export async function haveTmux(): Promise<boolean> {
  try {
    return (await new Deno.Command("tmux", {
      args: ["-V"],
      stdout: "null",
      stderr: "null",
    }).output()).success;
  } catch {
    return false;
  }
}

/**
 * Starts `argv` in a new detached tmux session of its own server. Requires
 * `--allow-run=tmux`.
 */
/** How long one Enter is given to empty the input box. */
const SUBMIT_WAIT_MS = 3_000;
/**
 * Enters pressed before a submit gives up: one every {@link SUBMIT_WAIT_MS}
 * for as long as any event may take (a loaded machine slowed 2.0.76's input
 * box past five of them).
 */
const SUBMIT_ATTEMPTS = Math.ceil(EVENT_WAIT_MS / SUBMIT_WAIT_MS);

/**
 * Whether Claude Code's input box (the line just below a horizontal rule)
 * still holds `text`.
 */
export function inputBoxHolds(screen: string, text: string): boolean {
  const lines = screen.split("\n");
  return lines.some((line, i) =>
    /^\s*─{10,}/.test(line) && (lines[i + 1] ?? "").includes(text)
  );
}

/**
 * Whether `text` went into the conversation: it is on screen, and not in
 * the input box. A frame caught mid-redraw (blank, or the box not drawn)
 * shows neither, and is no proof.
 */
export function promptTaken(screen: string, text: string): boolean {
  return screen.includes(text) && !inputBoxHolds(screen, text);
}

export async function startTmux(
  argv: string[],
  options: TmuxOptions,
): Promise<TmuxPane> {
  const socket = join(options.dir, "tmux.sock");
  const env = { ...options.env, TERM: "xterm-256color" };
  await tmux(socket, env, [
    "-f",
    "/dev/null",
    "new-session",
    "-d",
    "-s",
    "main",
    "-x",
    String(options.width ?? 160),
    "-y",
    String(options.height ?? 50),
    "-c",
    options.cwd,
    "--",
    ...argv,
  ]);
  // Keep the pane after the program exits, so its last screen stays readable.
  await tmux(socket, env, ["set-option", "-t", "main", "remain-on-exit", "on"]);
  const screens = new Set<string>();
  let recording = true;
  let recorder: Promise<void> = Promise.resolve();
  const pane: TmuxPane = {
    type: async (text) =>
      void await tmux(socket, env, ["send-keys", "-t", "main", "-l", text]),
    keys: async (...names) =>
      void await tmux(socket, env, ["send-keys", "-t", "main", ...names]),
    submit: async (text) => {
      await pane.type(text);
      await pane.waitFor(
        new RegExp(text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")),
      );
      // An Enter that lands while Claude Code is busy starting up is lost
      // (2.0.76, on a loaded machine): press it again until the input box
      // is empty. Enter on an empty box does nothing, so a late first one
      // cannot send the prompt twice. A prompt that ends the program
      // (`/exit`) leaves its last screen, box and all: it was taken too.
      let takenFrames = 0;
      const received = text.startsWith("/") ? undefined : options.received;
      const taken = async () => {
        if (!(await pane.alive())) return true;
        // A screen can pass for taken while the prompt was lost (2.0.76
        // under load): where the API can tell, only a request proves it.
        if (received) return received(text);
        // Two frames in a row: one can be caught mid-redraw (2.0.76 under
        // load left a prompt in the box after such a frame passed for taken).
        takenFrames = promptTaken(await pane.screen(), text)
          ? takenFrames + 1
          : 0;
        return takenFrames >= 2;
      };
      for (let attempt = 1;; attempt++) {
        await pane.keys("Enter");
        const deadline = Date.now() + SUBMIT_WAIT_MS;
        while (Date.now() < deadline) {
          if (await taken()) return;
          await new Promise((r) => setTimeout(r, 100));
        }
        if (attempt === SUBMIT_ATTEMPTS) {
          throw new Error(
            `the prompt stayed in the input box after ${attempt} Enters:\n` +
              await pane.screen(),
          );
        }
      }
    },
    screen: () => tmux(socket, env, ["capture-pane", "-p", "-t", "main"]),
    everShown: async (text) => {
      if (recording) screens.add(await pane.screen());
      for (const screen of screens) if (screen.includes(text)) return true;
      return false;
    },
    waitFor: async (pattern, timeoutMs = EVENT_WAIT_MS) => {
      const deadline = Date.now() + timeoutMs;
      let screen = "";
      while (Date.now() < deadline) {
        screen = await pane.screen();
        if (pattern.test(screen)) return screen;
        await new Promise((r) => setTimeout(r, 100));
      }
      throw new Error(`screen never matched ${pattern}:\n${screen}`);
    },
    settled: async (timeoutMs = EVENT_WAIT_MS) => {
      const deadline = Date.now() + timeoutMs;
      let last = await pane.screen();
      let same = 0;
      while (Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 250));
        const screen = await pane.screen();
        same = screen === last ? same + 1 : 0;
        last = screen;
        if (same >= 4) return screen;
      }
      throw new Error(`screen never settled:\n${last}`);
    },
    alive: async () =>
      (await tmux(socket, env, [
        "display-message",
        "-p",
        "-t",
        "main",
        "#{pane_dead}",
      ])).trim() === "0",
    close: async () => {
      recording = false;
      await recorder;
      // The program gets SIGHUP; wait for it to be gone, so nothing still
      // writes into the scenario's folder when it is removed.
      let pid = 0;
      try {
        pid = Number(
          await tmux(socket, env, [
            "display-message",
            "-p",
            "-t",
            "main",
            "#{pane_pid}",
          ]),
        );
        await tmux(socket, env, ["kill-server"]);
      } catch { /* already gone */ }
      const deadline = Date.now() + 5_000;
      while (pid > 0 && Date.now() < deadline && processAlive(pid)) {
        await new Promise((r) => setTimeout(r, 50));
      }
      if (pid > 0 && processAlive(pid)) Deno.kill(pid, "SIGKILL");
    },
  };
  recorder = (async () => {
    while (recording) {
      try {
        screens.add(await pane.screen());
      } catch { /* the server is gone */ }
      await new Promise((r) => setTimeout(r, 100));
    }
  })();
  return pane;
}
