/**
 * stall-watch: a Claude Code Stop hook that notices when a session went
 * silent on a tool call and nudges it back to work.
 *
 * With no arguments it reads the hook payload on stdin and exits 0 (allow)
 * or 2 (block, recovery prompt on stderr). See `stall-watch --help`.
 *
 * @module
 */

import { main } from "./src/cli.ts";
import { realIO } from "./src/shared/real_io.ts";

if (import.meta.main) {
  Deno.exit(await main(Deno.args, realIO()));
}
