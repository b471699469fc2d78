/**
 * MCP tool names as Claude Code writes them: `mcp__<server>__<tool>`, plugin
 * servers `mcp__plugin_<plugin>_<server>__<tool>`; split on `__` only.
 *
 * @module
 */

/** An MCP tool name taken apart: the server as written (`plugin_acme_db-tools`), the tool, a plugin server's plugin. */
interface McpToolName {
  server: string;
  tool: string;
  plugin: string | null;
}

/** Splits an MCP tool name; `null` for any other tool. */
export function parseMcpToolName(name: string): McpToolName | null {
  const parts = name.split("__");
  if (parts[0] !== "mcp" || parts.length < 3) return null;
  const server = parts[1] as string;
  if (server === "") return null;
  return { server, tool: parts.slice(2).join("__"), plugin: pluginOf(server) };
}

/** The plugin (kebab-case) of a plugin server segment (`plugin_acme_db-tools` -> `acme`). */
export function pluginOf(server: string): string | null {
  return /^plugin_([^_]+)_./.exec(server)?.[1] ?? null;
}
