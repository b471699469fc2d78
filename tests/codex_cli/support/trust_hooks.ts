/**
 * Trusts, through `codex app-server`, every Stop hook of one `hooks.json`
 * (whatever its command), with stall-watch's own client
 * (`src/install/codex_trust.ts`), and prints the hooks' trust before and
 * after as JSON. Run inside the session's namespace (`session.run`), so the
 * server it starts stays offline like every Codex of the tier.
 *
 * Usage: `trust_hooks.ts <cwd> <hooks.json>`.
 *
 * @module
 */

import { withCodexAppServer } from "../../../src/install/codex_app_server.ts";
import {
  listCodexHooks,
  trustCodexHooks,
} from "../../../src/install/codex_trust.ts";

const [cwd, file] = Deno.args;
const result = await withCodexAppServer(
  {
    cwd: cwd!,
    env: Deno.env.toObject(),
    timeoutMs: 60_000,
  },
  "0.0.0",
  async (client) => {
    const mine = (await listCodexHooks(client, cwd!)).hooks.filter((h) =>
      h.sourcePath === file
    );
    await trustCodexHooks(client, mine);
    const after = (await listCodexHooks(client, cwd!)).hooks.filter((h) =>
      h.sourcePath === file
    );
    return {
      before: mine.map((h) => h.trustStatus),
      after: after.map((h) => h.trustStatus),
    };
  },
);
console.log(JSON.stringify(result));
