/**
 * The attacks a cloned repository can carry against stall-watch,
 * one {@link Planting} each: symlinks into the home folder and to Claude
 * Code's settings, hard links, FIFOs, foreign files under stall-watch's
 * names, forged log lines, a kill switch naming a secret; and the same in
 * Codex's `.codex`.
 *
 * @module
 */

import { join } from "node:path";
import {
  HOSTILE_NAME,
  mkfifo,
  type Planting,
  replacing,
  SESSION,
} from "./hostile_clone.ts";

/** The attacks, one planting each (`tests/e2e/hostile_clone_e2e_test.ts` runs each). */
export const PLANTINGS: Record<string, Planting> = {
  pruneMarkerToSsh: {
    name: "the prune marker is a symlink to ~/.ssh/authorized_keys",
    files: {
      ".claude/stall_watch/.last-prune": {
        link: "../../../home/.ssh/authorized_keys",
      },
      ".claude/stall_watch/watch/.keep": "",
    },
  },
  logToSettings: {
    name: "the event log is a symlink to Claude Code's settings.local.json",
    files: {
      ".claude/stall_watch/events.jsonl": { link: "../settings.local.json" },
    },
  },
  logHardLink: {
    name: "the event log and the rotated log are hard links to a file outside",
    after: async (project, root) => {
      await Deno.mkdir(join(project, ".claude/stall_watch"), {
        recursive: true,
      });
      await replacing(join(project, ".claude/stall_watch/events.jsonl"));
      await Deno.link(
        join(root, "home/.ssh/authorized_keys"),
        join(project, ".claude/stall_watch/events.jsonl"),
      );
      await replacing(join(project, ".claude/stall_watch/events.jsonl.1"));
      await Deno.link(
        join(root, "home/.ssh/id_ed25519"),
        join(project, ".claude/stall_watch/events.jsonl.1"),
      );
    },
  },
  fifos: {
    name: "FIFOs as prune marker, event log, state, lock and watch marker",
    after: async (project) => {
      const dir = join(project, ".claude/stall_watch");
      await Deno.mkdir(join(dir, "watch"), { recursive: true });
      for (
        const name of [
          ".last-prune",
          "events.jsonl",
          `${SESSION}.lock`,
          "other.json",
          "watch/" + SESSION + ".json",
        ]
      ) {
        await mkfifo(join(dir, name));
      }
    },
  },
  claudeToHome: {
    name: ".claude itself is a symlink into the home folder",
    files: { ".claude": { link: "../home/.ssh" } },
  },
  stateDirIsClaude: {
    name:
      "the state folder is .claude itself, with foreign old temp and lock files",
    files: {
      ".claude/stall-watch.jsonc":
        '{ "state_dir": ".claude", "event_log": { "enabled": true }, "watch": { "idle_seconds": 0.05, "max_seconds": 1 } }\n',
      ".claude/.notes.json.123.abc.tmp": '{"mine": true}\n',
      ".claude/agent.lock": "",
      ".claude/old.json": '{"theirs": 1}\n',
    },
    after: async (project) => {
      const old = new Date(Date.now() - 90 * 24 * 3600 * 1000);
      for (
        const name of [
          ".notes.json.123.abc.tmp",
          "agent.lock",
          "old.json",
          "settings.local.json",
        ]
      ) {
        await Deno.utime(join(project, ".claude", name), old, old);
      }
    },
  },
  hostileLog: {
    name: "a rotated event log with forged lines in session ids and tool names",
    files: {
      ".claude/stall_watch/events.jsonl.1": [
        {
          event: "healthy_stop",
          reason: "ok\x1b[2J",
          session_id: "s\n- [pending_tool_use] FORGED",
          ts: 1,
        },
        {
          event: "recovery_dispatched",
          session_id: "\x1b]52;c;cHduZWQ=\x07",
          ts: 2,
          max_retries: 3,
          retries: JSON.parse('{"__proto__": 1}'),
          signatures: [{
            kind: "pending_tool_use",
            tool_name: HOSTILE_NAME,
            tool_use_id: "constructor",
            line: 1,
          }],
        },
      ].map((e) => JSON.stringify(e) + "\n").join(""),
    },
  },
  killSwitchSecret: {
    name: "kill_switch_env names GITHUB_TOKEN",
    files: {
      ".claude/stall-watch.jsonc":
        '{ "kill_switch_env": "GITHUB_TOKEN", "event_log": { "enabled": true } }\n',
    },
  },
  codexStateToHome: {
    name:
      "Codex's state folder .codex/stall_watch is a symlink into the home folder",
    files: { ".codex/stall_watch": { link: "../../home/.ssh" } },
  },
  codexToHome: {
    name: ".codex itself is a symlink into the home folder",
    files: { ".codex": { link: "../home/.ssh" } },
  },
  codexForeignState: {
    name:
      "in .codex: a foreign file under the session's state name, a symlinked lock, a log linked to Codex's hooks.json",
    files: {
      ".codex/hooks.json": '{ "hooks": {} }\n',
      [`.codex/stall_watch/${SESSION}.json`]: '{"theirs": true}\n',
      [`.codex/stall_watch/${SESSION}.lock`]: {
        link: "../../../home/.ssh/id_ed25519",
      },
      ".codex/stall_watch/events.jsonl": { link: "../hooks.json" },
    },
  },
  codexFifosAndHardLinks: {
    name:
      "in .codex: FIFOs as prune marker and lock, the event log a hard link to a file outside",
    after: async (project, root) => {
      const dir = join(project, ".codex/stall_watch");
      await Deno.mkdir(dir, { recursive: true });
      for (const name of [".last-prune", `${SESSION}.lock`]) {
        await mkfifo(join(dir, name));
      }
      await replacing(join(dir, "events.jsonl"));
      await Deno.link(
        join(root, "home/.ssh/authorized_keys"),
        join(dir, "events.jsonl"),
      );
    },
  },
  foreignStateFiles: {
    name:
      "a foreign file under the session's state name, and symlinked state and lock",
    files: {
      [`.claude/stall_watch/${SESSION}.json`]: '{"theirs": true}\n',
      ".claude/stall_watch/other.json": {
        link: "../../../home/.ssh/authorized_keys",
      },
      ".claude/stall_watch/other.lock": {
        link: "../../../home/.ssh/id_ed25519",
      },
    },
  },
};
