/**
 * The stall-watch version, from `deno.json`.
 *
 * @module
 */

import config from "../../deno.json" with { type: "json" };

/** The released version, e.g. `0.1.0`. */
export const VERSION: string = config.version;
