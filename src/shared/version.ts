/**
 * The stall-watch version, read from `deno.json` so there is one place to
 * bump it.
 *
 * @module
 */

import config from "../../deno.json" with { type: "json" };

/** The released version, e.g. `0.1.0`. */
export const VERSION: string = config.version;
