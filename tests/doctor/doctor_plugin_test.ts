/**
 * `doctor` and `install` beside stall-watch installed as a Claude Code
 * plugin, with Claude Code's records as `claude plugin install` writes them
 * (2.1.332): doctor sees the plugin and what it runs, warns when a
 * settings file registers stall-watch as well (double nudges), and install
 * refuses to add that second registration.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { main } from "../../src/cli.ts";
import { type FakeIO, fakeIO } from "../support/fake_io.ts";
import { tempFixture } from "../support/temp_project.ts";

const posix = Deno.build.os !== "windows";
const ID = "stall-watch@stall-watch";

interface World {
  dir: string;
  config: string;
  io(env?: Record<string, string>): FakeIO;
  /** Records an install of the plugin (`scope`; project/local: this dir). */
  installPlugin(scope: "user" | "project" | "local"): Promise<void>;
  /** Sets `enabledPlugins[ID]` in one settings file. */
  enable(scope: "user" | "project" | "local", value: boolean): Promise<void>;
  doctor(env?: Record<string, string>): Promise<{ code: number; out: string }>;
}

/** A project with Claude Code's config beside it; disposal removes both. */
function tempWorld(): Promise<World & AsyncDisposable> {
  return tempFixture(async (dir): Promise<World> => {
    const config = join(dir, "user-config");
    const bin = join(dir, "bin", posix ? "stall-watch" : "stall-watch.exe");
    await Deno.mkdir(join(dir, "bin"));
    await Deno.mkdir(join(config, "plugins"), { recursive: true });
    await Deno.writeTextFile(bin, "#!/bin/sh\n");
    if (posix) await Deno.chmod(bin, 0o755);
    const installs: Record<string, unknown>[] = [];
    const settingsFile = (scope: string) =>
      scope === "user" ? join(config, "settings.json") : join(
        dir,
        ".claude",
        scope === "project" ? "settings.json" : "settings.local.json",
      );
    const world: World = {
      dir,
      config,
      io: (env = {}) => ({
        ...fakeIO({
          cwd: dir,
          env: {
            CLAUDE_CONFIG_DIR: config,
            PATH: join(dir, "no-deno"),
            ...env,
          },
        }),
        execPath: bin,
      }),
      installPlugin: async (scope) => {
        installs.push({
          scope,
          ...(scope === "user" ? {} : { projectPath: dir }),
          installPath: join(
            config,
            "plugins",
            "cache",
            "stall-watch",
            "stall-watch",
            "0.1.0",
          ),
          version: "0.1.0",
          installedAt: "2026-12-01T20:04:04.758Z",
          lastUpdated: "2026-12-01T20:04:04.758Z",
          gitCommitSha: "adca274175c6ef014c7f077b055bd51669743db6",
        });
        await Deno.writeTextFile(
          join(config, "plugins", "installed_plugins.json"),
          JSON.stringify({ version: 2, plugins: { [ID]: installs } }, null, 2),
        );
        await world.enable(scope, true);
      },
      enable: async (scope, value) => {
        const path = settingsFile(scope);
        await Deno.mkdir(join(path, ".."), { recursive: true });
        let settings: Record<string, unknown> = {};
        try {
          settings = JSON.parse(await Deno.readTextFile(path));
        } catch { /* new file */ }
        settings.enabledPlugins = { [ID]: value };
        await Deno.writeTextFile(path, JSON.stringify(settings, null, 2));
      },
      doctor: async (env) => {
        const fake = world.io(env);
        const code = await main(["doctor"], fake);
        assert.deepEqual(fake.stderr, []);
        return { code, out: fake.stdout.join("") };
      },
    };
    return world;
  });
}

function lines(out: string, status: string): string[] {
  return out.split("\n").filter((l) => l.startsWith(`  ${status}`))
    .map((l) => l.slice(8));
}

Deno.test("doctor sees the plugin installed and enabled: registered, healthy, nothing in the settings files needed", async () => {
  await using w = await tempWorld();
  await w.installPlugin("user");
  const { code, out } = await w.doctor();
  assert.equal(code, 0, out);
  assert.deepEqual(lines(out, "FAIL"), []);
  assert.ok(
    lines(out, "ok").includes(
      `runs as the Claude Code plugin ${ID} 0.1.0 (user scope)`,
    ),
    out,
  );
  // No release binary and no Deno: the plugin would allow every stop.
  assert.deepEqual(lines(out, "warn"), [
    "the plugin finds neither its release binary nor Deno, so it allows every stop",
  ]);
});

Deno.test("doctor says what the plugin runs: its release binary, else Deno, with the last fetch", async () => {
  await using w = await tempWorld();
  await w.installPlugin("local");
  const data = join(w.config, "plugins", "data", "stall-watch-stall-watch");
  await Deno.mkdir(data, { recursive: true });
  await Deno.writeTextFile(
    join(data, "fetch-status"),
    "0.1.0 x86_64-unknown-linux-gnu cannot download SHA256SUMS\n",
  );
  const denoDir = join(w.dir, "deno-bin");
  await Deno.mkdir(denoDir);
  const deno = join(denoDir, posix ? "deno" : "deno.exe");
  await Deno.writeTextFile(deno, "");
  let { out } = await w.doctor({ PATH: denoDir, Path: denoDir });
  assert.ok(
    lines(out, "ok").includes(
      `the plugin runs its source with ${deno} (no release binary here yet; last fetch: 0.1.0 x86_64-unknown-linux-gnu cannot download SHA256SUMS)`,
    ),
    out,
  );
  const binDir = join(data, "bin", "0.1.0", Deno.build.target);
  await Deno.mkdir(binDir, { recursive: true });
  const binary = join(binDir, posix ? "stall-watch" : "stall-watch.exe");
  await Deno.writeTextFile(binary, "");
  ({ out } = await w.doctor({ PATH: denoDir, Path: denoDir }));
  assert.ok(
    lines(out, "ok").includes(`the plugin runs the release binary ${binary}`),
    out,
  );
  assert.deepEqual(lines(out, "warn"), []);
});

Deno.test("doctor warns when a settings file registers stall-watch beside the plugin (each stall nudged twice)", async () => {
  await using w = await tempWorld();
  assert.equal(await main(["install"], w.io()), 0);
  await w.installPlugin("user");
  const { code, out } = await w.doctor();
  assert.equal(code, 0, out);
  const local = join(".claude", "settings.local.json");
  assert.ok(
    out.includes(
      `  warn  stall-watch runs twice at every stop: as the plugin ${ID} and from ${local}, so each stall is nudged twice\n` +
        `        fix: keep one: "stall-watch uninstall --scope local" (the plugin stays), or "claude plugin uninstall ${ID}"\n`,
    ),
    out,
  );
});

Deno.test("doctor: a plugin disabled here, or installed for another project, does not count", async () => {
  {
    await using w = await tempWorld();
    await w.installPlugin("user");
    await w.enable("local", false);
    let { code, out } = await w.doctor();
    assert.equal(code, 1);
    assert.ok(
      lines(out, "ok").includes(
        `the Claude Code plugin ${ID} 0.1.0 (user scope) is installed but not enabled here (local settings)`,
      ),
      out,
    );
    assert.ok(
      out.includes(
        "  FAIL  stall-watch is not registered for Stop in any settings file\n" +
          `        fix: enable its plugin here ("claude plugin enable ${ID}"), or run "stall-watch install" in the project root\n`,
      ),
      out,
    );
    // Disabled here, a registration in a settings file is no double.
    assert.equal(await main(["install"], w.io()), 0);
    ({ code, out } = await w.doctor());
    assert.equal(code, 0, out);
    assert.ok(!out.includes("runs twice"), out);
  }
  {
    await using w = await tempWorld();
    await Deno.writeTextFile(
      join(w.config, "plugins", "installed_plugins.json"),
      JSON.stringify({
        version: 2,
        plugins: {
          [ID]: [{
            scope: "project",
            projectPath: join(w.dir, "other"),
            version: "0.1.0",
          }],
        },
      }),
    );
    await w.enable("user", true);
    const { code, out } = await w.doctor();
    assert.equal(code, 1);
    assert.ok(!out.includes("plugin"), out);
  }
});

Deno.test("doctor warns, without failing, when Claude Code's plugin list cannot be read", async () => {
  await using w = await tempWorld();
  assert.equal(await main(["install"], w.io()), 0);
  await Deno.writeTextFile(
    join(w.config, "plugins", "installed_plugins.json"),
    "{not json",
  );
  const { code, out } = await w.doctor();
  assert.equal(code, 0, out);
  assert.equal(lines(out, "warn").length, 1, out);
  assert.match(
    lines(out, "warn")[0]!,
    /^cannot tell whether the stall-watch plugin is installed: cannot read .*installed_plugins\.json: /,
  );
});

Deno.test("install refuses a registration beside the enabled plugin, names it and says how to go on, and writes nothing", async () => {
  await using w = await tempWorld();
  await w.installPlugin("project");
  for (const args of [[], ["--scope", "project"], ["--dry-run"]]) {
    const fake = w.io();
    assert.equal(await main(["install", ...args], fake), 1);
    assert.deepEqual(fake.stdout, []);
    assert.equal(fake.stderr.length, 1);
    assert.match(
      fake.stderr[0]!,
      new RegExp(
        `^stall-watch: Refusing to register stall-watch in \\.claude[/\\\\]settings(\\.local)?\\.json: it already runs here as the Claude Code plugin ${ID} 0\\.1\\.0 \\(project scope\\), and both would nudge every stall\\. Keep the plugin \\(there is nothing to install\\), or remove it first \\("claude plugin uninstall ${ID}", or for this project only "claude plugin disable ${ID} --scope local"\\) and run install again\\n$`,
      ),
    );
  }
  const project = JSON.parse(
    await Deno.readTextFile(join(w.dir, ".claude", "settings.json")),
  );
  assert.deepEqual(project, { enabledPlugins: { [ID]: true } });
  await assert.rejects(
    Deno.lstat(join(w.dir, ".claude", "settings.local.json")),
    Deno.errors.NotFound,
  );
  // Disabled for this project, install goes ahead.
  await w.enable("local", false);
  assert.equal(await main(["install"], w.io()), 0);
});
