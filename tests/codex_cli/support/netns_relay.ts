/**
 * The two ends of the bridge that lets Codex, in a network namespace of
 * its own with only a loopback (see `codex_session.ts`), reach the fake
 * API on the host's 127.0.0.1. A Unix socket is reached by its path,
 * whatever the network namespace, so it carries the connections across:
 *
 * - `netns_relay.ts outside <socket> <port>`: on the host, listens on the
 *   Unix socket and relays each connection to `127.0.0.1:<port>` (the fake
 *   API); prints `ready` once listening. Ends when stdin closes.
 * - `netns_relay.ts inside <socket> <port> <program> [args...]`: in the
 *   namespace, brings its loopback up, listens on `127.0.0.1:<port>` there
 *   and relays each connection to the socket; then runs the program and
 *   exits with its exit code.
 *
 * Two processes, so the test process itself keeps `--allow-net=127.0.0.1`
 * (serving on a socket file needs net access to `unix:<path>`). Exit 125
 * when a relay cannot be set up, with one line on stderr.
 *
 * @module
 */

const [mode, socket, portText, program, ...args] = Deno.args;
const port = Number(portText);
if (
  !socket || !Number.isInteger(port) ||
  !(mode === "outside" || (mode === "inside" && program))
) {
  console.error(
    "usage: netns_relay.ts outside <socket> <port> | inside <socket> <port> <program> [args...]",
  );
  Deno.exit(125);
}

/** Copies bytes both ways until both sides are done. */
async function splice(a: Deno.Conn, b: Deno.Conn): Promise<void> {
  const pipe = async (from: Deno.Conn, to: Deno.Conn) => {
    try {
      await from.readable.pipeTo(to.writable);
    } catch { /* the other side closed */ }
  };
  await Promise.all([pipe(a, b), pipe(b, a)]);
}

/** Accepts on `listener` and relays each connection to `connect()`. */
async function serve(
  listener: Deno.Listener,
  connect: () => Promise<Deno.Conn>,
  where: string,
): Promise<void> {
  for await (const conn of listener) {
    connect().then((other) => splice(conn, other), (error) => {
      console.error(`netns relay: cannot reach ${where}: ${error}`);
      conn.close();
    });
  }
}

if (mode === "outside") {
  const listener = Deno.listen({ transport: "unix", path: socket });
  serve(
    listener,
    () => Deno.connect({ hostname: "127.0.0.1", port }),
    `127.0.0.1:${port}`,
  );
  console.log("ready");
  // Ends with the session: when the test closes stdin (or dies).
  for await (const _ of Deno.stdin.readable) { /* nothing is sent */ }
  Deno.exit(0);
}

const up = await new Deno.Command("ip", {
  args: ["link", "set", "lo", "up"],
  stdin: "null",
  stdout: "null",
  stderr: "piped",
}).output().catch((error) => ({
  success: false,
  stderr: new TextEncoder().encode(String(error)),
}));
if (!up.success) {
  console.error(
    `netns relay: cannot bring loopback up: ${
      new TextDecoder().decode(up.stderr).trim()
    }`,
  );
  Deno.exit(125);
}
serve(
  Deno.listen({ hostname: "127.0.0.1", port }),
  () => Deno.connect({ transport: "unix", path: socket }),
  socket,
);
const child = new Deno.Command(program!, {
  args,
  stdin: "inherit",
  stdout: "inherit",
  stderr: "inherit",
}).spawn();
const status = await child.status;
// Deno reports a command a signal ended as 128 + the signal's number.
Deno.exit(status.code);
