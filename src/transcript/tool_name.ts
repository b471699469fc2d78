/**
 * Tool names as Claude Code writes them: MCP tools are
 * `mcp__<server>__<tool>`, and plugin servers are
 * `mcp__plugin_<plugin>_<server>__<tool>`. Server names may contain `-` and
 * `_`, so names are split on `__` only.
 *
 * @module
 */

/** An MCP tool name taken apart. */
export interface McpToolName {
  /** The server segment as written, e.g. `github` or `plugin_acme_db-tools`. */
  server: string;
  tool: string;
  /** For plugin servers, the plugin (see {@link pluginOf}). */
  plugin: string | null;
}

/**
 * Splits an MCP tool name; `null` for any other tool.
 *
 * @param name A `tool_use` block's `name`.
 */
export function parseMcpToolName(name: string): McpToolName | null {
  const parts = name.split("__");
  if (parts[0] !== "mcp" || parts.length < 3) return null;
  const server = parts[1] as string;
  if (server === "") return null;
  return { server, tool: parts.slice(2).join("__"), plugin: pluginOf(server) };
}

/**
 * The plugin of a plugin MCP server segment (`plugin_acme_db-tools` ->
 * `acme`), or `null`. Plugin names are kebab-case, so the first `_` after
 * `plugin_` ends the plugin's name.
 */
export function pluginOf(server: string): string | null {
  return /^plugin_([^_]+)_./.exec(server)?.[1] ?? null;
}
