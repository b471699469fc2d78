/**
 * The notes `install` prints on stderr: a machine path written into the
 * shared settings file, a new `.claude` below the project root, and the
 * files to keep out of git. Pure cases, then as the user runs it.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { main } from "../../src/cli.ts";
import {
  type InstallFacts,
  installNotes,
} from "../../src/install/install_notes.ts";
import { describeCommand } from "../../src/install/hook_command.ts";
import { fakeIO } from "../support/fake_io.ts";
import { tempProject } from "../support/temp_project.ts";

const BASE: InstallFacts = {
  scope: "local",
  settingsFile: ".claude/settings.local.json",
  program: "/usr/local/bin/stall-watch",
  claudeDirExisted: true,
  rootAbove: null,
  isGitRoot: false,
  gitignore: "",
};

Deno.test("installNotes(): nothing to say about a local install in an existing .claude outside git", () => {
  assert.deepEqual(installNotes(BASE), []);
});

Deno.test("installNotes(): --scope project names the machine path in the shared file", () => {
  assert.deepEqual(
    installNotes({
      ...BASE,
      scope: "project",
      settingsFile: ".claude/settings.json",
    }),
    [
      ".claude/settings.json is shared through the repository, and the entry runs /usr/local/bin/stall-watch, a path on this machine: everyone else needs stall-watch at that same path (--scope local keeps the entry to this machine)",
    ],
  );
});

Deno.test("installNotes(): a new .claude below a folder with .git or .claude points at that folder", () => {
  assert.deepEqual(
    installNotes({
      ...BASE,
      claudeDirExisted: false,
      rootAbove: { dir: "/src/app", marker: ".git" },
    }),
    [
      'this folder had no .claude, but /src/app has .git: if that is the project root, Claude Code will not read the new .claude here; run install there instead: cd "/src/app" && stall-watch install',
    ],
  );
  assert.deepEqual(
    installNotes({
      ...BASE,
      claudeDirExisted: true,
      rootAbove: { dir: "/src/app", marker: ".git" },
    }),
    [],
    "an existing .claude here is the user's choice",
  );
  assert.deepEqual(
    installNotes({
      ...BASE,
      scope: "user",
      claudeDirExisted: false,
      rootAbove: { dir: "/src", marker: ".claude" },
    }),
    [],
  );
});

Deno.test("installNotes(): at a repository's root, names what .gitignore does not cover yet", () => {
  const git = { ...BASE, isGitRoot: true };
  assert.deepEqual(installNotes(git), [
    "keep .claude/settings.local.json and .claude/stall_watch/ out of git (this machine's path, and session state): add them to .gitignore",
  ]);
  assert.deepEqual(
    installNotes({
      ...git,
      gitignore: "node_modules\n.claude/settings.local.json\n",
    }),
    [
      "keep .claude/stall_watch/ out of git (this machine's path, and session state): add it to .gitignore",
    ],
  );
  for (
    const covered of [
      ".claude/",
      "/.claude",
      ".claude\n",
      "settings.local.json\nstall_watch/",
    ]
  ) {
    assert.deepEqual(installNotes({ ...git, gitignore: covered }), [], covered);
  }
  assert.equal(
    installNotes({ ...git, gitignore: "# .claude\n!.claude/stall_watch\n" })
      .length,
    1,
    "comments and negations cover nothing",
  );
});

Deno.test("install prints the notes on stderr, and a timeout change as old -> new", async () => {
  await using project = await tempProject();
  const root = project.dir;
  await Deno.mkdir(join(root, ".git"));
  const sub = join(root, "packages", "web");
  await Deno.mkdir(sub, { recursive: true });
  const inSub = fakeIO({ cwd: sub, env: { HOME: "/nonexistent-home" } });
  assert.equal(await main(["install", "--dry-run"], inSub), 0);
  assert.deepEqual(inSub.stderr, [
    `stall-watch: note: this folder had no .claude, but ${root} has .git: if that is the project root, Claude Code will not read the new .claude here; run install there instead: cd "${root}" && stall-watch install\n`,
  ]);
  const atRoot = fakeIO({ cwd: root });
  assert.equal(await main(["install"], atRoot), 0);
  assert.deepEqual(atRoot.stderr, [
    "stall-watch: note: keep .claude/settings.local.json and .claude/stall_watch/ out of git (this machine's path, and session state): add them to .gitignore\n",
  ]);
  await Deno.writeTextFile(join(root, ".gitignore"), ".claude/\n");
  const again = fakeIO({ cwd: root });
  assert.equal(await main(["install", "--timeout", "45"], again), 0);
  assert.deepEqual(again.stderr, []);
  const handler = JSON.parse(
    await Deno.readTextFile(join(root, ".claude", "settings.local.json")),
  ).hooks.Stop[0].hooks[0];
  assert.ok(
    again.stdout.join("").includes(
      `  Stop: updated timeout 30 -> 45 of ${describeCommand(handler)}\n`,
    ),
    again.stdout.join(""),
  );
  const shared = fakeIO({ cwd: root });
  assert.equal(await main(["install", "--scope", "project"], shared), 0);
  assert.match(
    shared.stderr.join(""),
    /^stall-watch: note: \.claude.settings\.json is shared through the repository, and the entry runs \/usr\/local\/bin\/stall-watch, a path on this machine/,
  );
});
