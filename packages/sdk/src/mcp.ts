/**
 * `@media-agent/sdk/mcp`: the Model Context Protocol both ways, with the official
 * `@modelcontextprotocol/sdk` (an optional peer dependency: install it to use this entry; no other entry loads it).
 *
 * - Expose: {@link serveMcpStdio}, {@link createMcpHttpHandler} and {@link createMcpServer} publish a host's
 *   capabilities as MCP tools; every call goes through the host's one invocation path as the actor the
 *   host's `authenticate` hook resolves.
 * - Consume: {@link registerMcpServer} registers an MCP server's tools as capabilities `mcp.<server>.<tool>`,
 *   side-effecting unless the host declares them read-only in code.
 *
 * See docs/architecture.md#mcp.
 *
 * @packageDocumentation
 */
export * from './mcp/index';
