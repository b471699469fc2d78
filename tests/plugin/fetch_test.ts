/**
 * The plugin's fetcher (`hooks/fetch.sh`) against a fake GitHub release on
 * 127.0.0.1, archived by the release's own packaging code and pinned in the
 * plugin copy's `release.sha256` as a release pins it: a good release, an
 * archive that is not the pinned one, no pin, a truncated archive, a dead
 * server, a binary that is not this version. Only a verified binary ever
 * reaches the data folder, nothing half-written stays, and the launcher
 * then falls back or runs it. Where the real release URL is formed, a
 * stand-in `curl` records it and nothing leaves the machine.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { TARGETS } from "../../.github/scripts/compile.ts";
import { archiveName, checksumsText } from "../../.github/scripts/package.ts";
import {
  hostTarget,
  listNames,
  packStandIn,
  PLUGIN_VERSION,
  scriptTest,
  type ScriptWorld,
  waitForFile,
} from "../support/plugin_scripts.ts";

const TARGET = TARGETS.find((t) => t.triple === hostTarget())!;
const ARCHIVE = archiveName(TARGET);

/** How the fake release misbehaves. */
type Fault =
  | "none"
  | "wrong-checksum"
  | "cut-connection"
  | "short-file"
  | "other-version"
  | "no-checksum-line";

/** A fake release server; `requests` lists the paths asked for. */
interface FakeRelease {
  base: string;
  requests: string[];
  /** Resolves when the server has a request it holds (see `hold`). */
  held: Promise<void>;
  /** Lets held requests be answered. */
  release(): void;
  close(): Promise<void>;
}

/**
 * Builds the release files as `deno task package` does, with a stand-in
 * binary, and pins the archive in the world's plugin copy as the release
 * would (a wrong hash, or another target's only, for those faults).
 */
async function buildRelease(
  world: ScriptWorld,
  fault: Fault,
): Promise<{ archive: Uint8Array<ArrayBuffer>; sums: string }> {
  const packed = await packStandIn(world.root, {
    version: fault === "other-version" ? "0.0.1" : PLUGIN_VERSION,
  });
  const sha = packed.sha256;
  const pin = {
    // Another target's line only, or this one's with a wrong hash.
    name: fault === "no-checksum-line"
      ? "stall-watch-riscv64-unknown-linux-gnu.tar.gz"
      : ARCHIVE,
    sha256: fault === "wrong-checksum" ? flipFirstDigit(sha) : sha,
  };
  await world.pin([pin]);
  // The release's own SHA256SUMS always matches what it serves: it is not
  // what the fetch checks against.
  const sums = checksumsText([{ name: ARCHIVE, sha256: sha }]);
  return { archive: packed.bytes, sums };
}

function flipFirstDigit(hex: string): string {
  return (hex[0] === "0" ? "1" : "0") + hex.slice(1);
}

/** Serves `/v<version>/SHA256SUMS` and the archive on 127.0.0.1. */
async function serveRelease(
  world: ScriptWorld,
  fault: Fault,
  options: { hold?: boolean } = {},
): Promise<FakeRelease> {
  const { archive, sums } = await buildRelease(world, fault);
  const requests: string[] = [];
  let letGo!: () => void;
  const gate = new Promise<void>((resolve) => letGo = resolve);
  let heldNow!: () => void;
  const held = new Promise<void>((resolve) => heldNow = resolve);
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    async (request) => {
      const path = new URL(request.url).pathname;
      requests.push(path);
      if (options.hold) {
        heldNow();
        await gate;
      }
      if (path === `/v${PLUGIN_VERSION}/SHA256SUMS`) {
        return new Response(sums);
      }
      if (path !== `/v${PLUGIN_VERSION}/${ARCHIVE}`) {
        return new Response("Not Found", { status: 404 });
      }
      if (fault === "short-file") {
        return new Response(archive.slice(0, archive.length >> 1));
      }
      if (fault === "cut-connection") {
        // Half the bytes of a response announced whole, then the end.
        const half = archive.slice(0, archive.length >> 1);
        const body = new ReadableStream<Uint8Array>({
          start(controller) {
            controller.enqueue(half);
            controller.close();
          },
        });
        return new Response(body, {
          headers: { "content-length": String(archive.length) },
        });
      }
      return new Response(archive);
    },
  );
  return {
    base: `http://127.0.0.1:${server.addr.port}/v${PLUGIN_VERSION}`,
    requests,
    held,
    release: () => letGo(),
    close: async () => {
      letGo();
      await server.shutdown();
    },
  };
}

/** What the data folder holds besides `bin/`, and the binary if any. */
async function dataState(world: ScriptWorld) {
  const binary = join(
    world.data,
    "bin",
    PLUGIN_VERSION,
    TARGET.triple,
    TARGET.binary,
  );
  let installed = false;
  try {
    installed = (await Deno.lstat(binary)).isFile;
  } catch { /* none */ }
  return {
    installed,
    names: await listNames(world.data),
    status: await Deno.readTextFile(join(world.data, "fetch-status"))
      .then((s) => s.trim(), () => null),
  };
}

function fetchTest(
  name: string,
  fn: (world: ScriptWorld, shell: string) => Promise<void>,
): void {
  scriptTest("fetch.sh", name, fn);
}

const STATUS = `${PLUGIN_VERSION} ${hostTarget()}`;

fetchTest(
  "a good release: the verified binary lands in bin/<version>/<target>/ and the launcher runs it",
  async (world, shell) => {
    const server = await serveRelease(world, "none");
    try {
      // An older version's binary is cleaned up.
      await world.standInBinary({ version: "0.0.1" });
      const result = await world.run("fetch.sh", {
        shell,
        args: ["--now"],
        env: { STALL_WATCH_PLUGIN_RELEASES: server.base },
      });
      assert.deepEqual(result, { code: 0, stdout: "", stderr: "" });
      assert.deepEqual(await dataState(world), {
        installed: true,
        names: ["bin", "fetch-status"],
        status: `${STATUS} ok`,
      });
      assert.deepEqual(await listNames(join(world.data, "bin")), [
        PLUGIN_VERSION,
      ]);
      assert.deepEqual(server.requests, [`/v${PLUGIN_VERSION}/${ARCHIVE}`]);
      const launched = await world.run("launch.sh", { shell });
      assert.equal(launched.code, 0, launched.stdout);
      assert.deepEqual((await world.recorded("binary-runs")).slice(0, 1), [
        `cwd=${world.project}`,
      ]);
      // Present, nothing more is fetched.
      await world.run("fetch.sh", {
        shell,
        env: { STALL_WATCH_PLUGIN_RELEASES: server.base },
      });
      await world.run("fetch.sh", {
        shell,
        args: ["--now"],
        env: { STALL_WATCH_PLUGIN_RELEASES: server.base },
      });
      assert.equal(server.requests.length, 1);
    } finally {
      await server.close();
    }
  },
);

for (
  const [fault, why] of [
    ["wrong-checksum", "checksum mismatch for"],
    ["short-file", "checksum mismatch for"],
    ["cut-connection", "cannot download"],
    ["other-version", "the binary does not run here or is not version"],
    ["no-checksum-line", "no checksum pinned for"],
  ] as const
) {
  fetchTest(
    `${fault}: nothing is installed, nothing half-written stays, the launcher falls back`,
    async (world, shell) => {
      const server = await serveRelease(world, fault);
      try {
        const result = await world.run("fetch.sh", {
          shell,
          args: ["--now"],
          env: { STALL_WATCH_PLUGIN_RELEASES: server.base },
        });
        assert.deepEqual(result, { code: 0, stdout: "", stderr: "" });
        const state = await dataState(world);
        assert.equal(state.installed, false);
        assert.deepEqual(state.names, ["fetch-failed", "fetch-status"]);
        assert.ok(state.status?.startsWith(`${STATUS} ${why}`), state.status!);
        const launched = await world.run("launch.sh", { shell });
        assert.equal(launched.code, 0);
        assert.match(launched.stdout, /no release binary/);
        assert.deepEqual(await world.recorded("binary-runs"), []);
      } finally {
        await server.close();
      }
    },
  );
}

fetchTest(
  "a dead server: nothing is installed, and the next session start waits an hour before trying again",
  async (world, shell) => {
    const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const port = (listener.addr as Deno.NetAddr).port;
    listener.close();
    const base = `http://127.0.0.1:${port}/v${PLUGIN_VERSION}`;
    await world.pin([{ name: ARCHIVE, sha256: "ab".repeat(32) }]);
    const result = await world.run("fetch.sh", {
      shell,
      args: ["--now"],
      env: { STALL_WATCH_PLUGIN_RELEASES: base },
    });
    assert.deepEqual(result, { code: 0, stdout: "", stderr: "" });
    assert.deepEqual(await dataState(world), {
      installed: false,
      names: ["fetch-failed", "fetch-status"],
      status: `${STATUS} cannot download ${ARCHIVE}`,
    });
    // A server up again is not asked within the hour.
    const server = await serveRelease(world, "none");
    try {
      const again = await world.run("fetch.sh", {
        shell,
        env: { STALL_WATCH_PLUGIN_RELEASES: server.base },
      });
      assert.deepEqual(again, { code: 0, stdout: "", stderr: "" });
      assert.deepEqual(server.requests, []);
    } finally {
      await server.close();
    }
  },
);

fetchTest(
  "the SessionStart hook returns before the download is answered, says nothing, and the download finishes in the background",
  async (world, shell) => {
    const server = await serveRelease(world, "none", { hold: true });
    try {
      const result = await world.run("fetch.sh", {
        shell,
        env: { STALL_WATCH_PLUGIN_RELEASES: server.base },
      });
      // The hook has exited; the server has not answered anything yet.
      assert.deepEqual(result, { code: 0, stdout: "", stderr: "" });
      await server.held;
      assert.equal((await dataState(world)).installed, false);
      server.release();
      const status = await waitForFile(
        join(world.data, "fetch-status"),
        "the background fetch",
      );
      assert.equal(status.trim(), `${STATUS} ok`);
      assert.deepEqual(await dataState(world), {
        installed: true,
        names: ["bin", "fetch-status"],
        status: `${STATUS} ok`,
      });
    } finally {
      await server.close();
    }
  },
);

fetchTest(
  "two fetches at once: one downloads, the other leaves it alone (the lock)",
  async (world, shell) => {
    const server = await serveRelease(world, "none", { hold: true });
    try {
      const env = { STALL_WATCH_PLUGIN_RELEASES: server.base };
      const first = world.run("fetch.sh", { shell, args: ["--now"], env });
      await server.held;
      const second = await world.run("fetch.sh", {
        shell,
        args: ["--now"],
        env,
      });
      assert.deepEqual(second, { code: 0, stdout: "", stderr: "" });
      assert.equal(server.requests.length, 1);
      server.release();
      assert.equal((await first).code, 0);
      assert.equal((await dataState(world)).status, `${STATUS} ok`);
      assert.equal(server.requests.length, 1);
    } finally {
      await server.close();
    }
  },
);

fetchTest(
  "the release URL override is refused unless it is http://127.0.0.1:<port>/...: nothing is fetched",
  async (world, shell) => {
    await world.fake(
      "curl",
      `printf '%s\\n' "$*" >> "${world.root}/curl-calls"; exit 7`,
    );
    for (
      const base of [
        "https://example.com/releases",
        "http://localhost:8080/v1",
        "http://127.0.0.1.example.com:80/v1",
        "http://127.0.0.1:80@example.com/v1",
        "http://127.0.0.1:8080/v1?x=$(touch PWNED)",
        "http://127.0.0.1:/v1",
        "file:///etc",
        "",
      ]
    ) {
      await Deno.remove(join(world.data, "fetch-status")).catch(() => {});
      const result = await world.run("fetch.sh", {
        shell,
        args: ["--now"],
        env: { STALL_WATCH_PLUGIN_RELEASES: base },
      });
      assert.deepEqual(result, { code: 0, stdout: "", stderr: "" });
      assert.match(
        (await dataState(world)).status ?? "",
        /no release source/,
        base,
      );
    }
    assert.deepEqual(await world.recorded("curl-calls"), []);
    assert.deepEqual(
      (await listNames(world.project)).concat(await listNames(world.root))
        .filter((n) => n.startsWith("PWNED")),
      [],
    );
  },
);

/** Moves the world's plugin copy into a Claude Code cache layout. */
async function asInstalled(
  world: ScriptWorld,
  known: Record<string, unknown> | null,
): Promise<string> {
  const plugins = join(world.home, ".claude", "plugins");
  const root = join(
    plugins,
    "cache",
    "stall-watch",
    "stall-watch",
    PLUGIN_VERSION,
  );
  await Deno.mkdir(join(root, ".."), { recursive: true });
  await Deno.rename(world.plugin, root);
  if (known) {
    await Deno.writeTextFile(
      join(plugins, "known_marketplaces.json"),
      JSON.stringify(known, null, 2),
    );
  }
  return join(root, "hooks", "fetch.sh");
}

fetchTest(
  "without an override, the release comes from the GitHub repository the marketplace was added from",
  async (world, shell) => {
    await world.fake(
      "curl",
      `printf '%s\\n' "$*" >> "${world.root}/curl-calls"; exit 7`,
    );
    await world.pin([{ name: ARCHIVE, sha256: "ab".repeat(32) }]);
    const path = await asInstalled(world, {
      "other": { source: { source: "github", repo: "evil/stall-watch" } },
      "stall-watch": {
        source: { source: "github", repo: "acme/stall-watch", ref: "main" },
        installLocation: join(
          world.home,
          ".claude/plugins/marketplaces/stall-watch",
        ),
        lastUpdated: "2026-12-01T20:05:24.507Z",
      },
    });
    const result = await world.run("fetch.sh", {
      shell,
      args: ["--now"],
      path,
    });
    assert.deepEqual(result, { code: 0, stdout: "", stderr: "" });
    const [call, ...more] = await world.recorded("curl-calls");
    assert.deepEqual(more, []);
    const url =
      `https://github.com/acme/stall-watch/releases/download/v${PLUGIN_VERSION}/${ARCHIVE}`;
    assert.ok(call?.startsWith("-q "), call);
    assert.ok(call?.endsWith(` ${url}`), call);
    assert.match(call!, / --proto =https --proto-redir =https/);
    assert.match(call!, / --max-time 300 /);
    assert.equal(
      (await dataState(world)).status,
      `${STATUS} cannot download ${ARCHIVE}`,
    );
  },
);

fetchTest(
  "a marketplace that is not on GitHub (a folder, a git URL) or an odd repo name has no release to fetch",
  async (world, shell) => {
    await world.fake(
      "curl",
      `printf '%s\\n' "$*" >> "${world.root}/curl-calls"; exit 7`,
    );
    const path = await asInstalled(world, null);
    const known = join(
      world.home,
      ".claude",
      "plugins",
      "known_marketplaces.json",
    );
    for (
      const source of [
        null,
        { source: "directory", path: "/src/stall-watch" },
        { source: "git", url: "https://git.example.com/stall-watch.git" },
        { source: "github", repo: "acme/../../x" },
        { source: "github", repo: "acme/stall-watch?x" },
        { source: "github", repo: "a/b/c" },
        { source: "github", repo: "acme\\/stall-watch" },
      ]
    ) {
      if (source) {
        await Deno.writeTextFile(
          known,
          JSON.stringify({ "stall-watch": { source } }),
        );
      }
      await Deno.remove(join(world.data, "fetch-status")).catch(() => {});
      const result = await world.run("fetch.sh", {
        shell,
        args: ["--now"],
        path,
      });
      assert.deepEqual(result, { code: 0, stdout: "", stderr: "" });
      assert.match((await dataState(world)).status ?? "", /no release source/);
    }
    assert.deepEqual(await world.recorded("curl-calls"), []);
  },
);

fetchTest(
  "no data folder, no version or no release target: nothing to do, silently",
  async (world, shell) => {
    await world.fake(
      "curl",
      `printf '%s\\n' "$*" >> "${world.root}/curl-calls"; exit 7`,
    );
    const env = { STALL_WATCH_PLUGIN_RELEASES: "http://127.0.0.1:9/v1" };
    for (
      const extra of [
        { CLAUDE_PLUGIN_DATA: undefined },
        { CLAUDE_PLUGIN_DATA: join(world.root, "missing") },
      ]
    ) {
      const result = await world.run("fetch.sh", {
        shell,
        args: ["--now"],
        env: { ...env, ...extra },
      });
      assert.deepEqual(result, { code: 0, stdout: "", stderr: "" });
    }
    await world.fake("uname", "echo 'FreeBSD amd64'");
    assert.deepEqual(
      await world.run("fetch.sh", { shell, args: ["--now"], env }),
      { code: 0, stdout: "", stderr: "" },
    );
    assert.deepEqual(await listNames(world.data), []);
    assert.deepEqual(await world.recorded("curl-calls"), []);
  },
);

fetchTest(
  "each of the five targets asks for its own release archive, by the name the release packs it under",
  async (world, shell) => {
    await world.pin(
      TARGETS.map((t) => ({ name: archiveName(t), sha256: "ab".repeat(32) })),
    );
    await world.fake(
      "curl",
      [
        "url=",
        "while [ $# -gt 0 ]; do case $1 in --output) shift ;; *) url=$1 ;; esac; shift; done",
        `printf '%s\\n' "\${url##*/}" >> "${world.root}/curl-calls"`,
        "exit 22",
      ].join("\n"),
    );
    const unames: Record<string, string> = {
      "x86_64-unknown-linux-gnu": "Linux x86_64",
      "aarch64-unknown-linux-gnu": "Linux aarch64",
      "x86_64-apple-darwin": "Darwin x86_64",
      "aarch64-apple-darwin": "Darwin arm64",
      "x86_64-pc-windows-msvc": "MINGW64_NT-10.0-19045 x86_64",
    };
    for (const target of TARGETS) {
      await world.fake("uname", `echo '${unames[target.triple]}'`);
      await world.run("fetch.sh", {
        shell,
        args: ["--now"],
        env: { STALL_WATCH_PLUGIN_RELEASES: "http://127.0.0.1:9/v1" },
      });
      assert.equal(
        (await dataState(world)).status,
        `${PLUGIN_VERSION} ${target.triple} cannot download ${
          archiveName(target)
        }`,
      );
    }
    assert.deepEqual(
      await world.recorded("curl-calls"),
      TARGETS.map((t) => archiveName(t)),
    );
  },
);
