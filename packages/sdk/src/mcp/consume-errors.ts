import type { ProviderSchemaProblem } from '../models/provider-schema';
import { MediaAgentError } from '../core/errors';

/**
 * An MCP server lists a tool whose name cannot form the capability id `mcp.<server>.<tool>`. Code
 * `MCP_TOOL_NAME_INVALID`; `details` carry `server` and `tool`. Nothing of that server was registered.
 * @public
 */
export class McpToolNameError extends MediaAgentError {
  /** @param server - the server name; @param tool - the tool name as listed */
  constructor(server: string, tool: string) {
    super(
      'MCP_TOOL_NAME_INVALID',
      `MCP server ${server}: tool ${JSON.stringify(tool.slice(0, 80))} cannot form a capability id mcp.${server}.<tool> (words of letters, digits, _ and - joined by ., at most 128 characters in all)`,
      { server, tool: tool.slice(0, 200) },
    );
  }
}

/**
 * An MCP server's tool advertises an input schema that is not a JSON Schema object, does not compile, or that
 * model providers reject even rewritten (the rules of `checkProviderSchema`). Code `MCP_TOOL_SCHEMA_UNSUPPORTED`;
 * `details` carry `server`, `tool`, and `problems` (each with its `rule` and JSON pointer `path`) when the
 * provider rules refused it. Nothing of that server was registered.
 * @public
 */
export class McpToolSchemaError extends MediaAgentError {
  /** The provider-schema problems, when the provider rules refused the schema (empty otherwise). */
  readonly problems: readonly ProviderSchemaProblem[];
  /** @param server - the server name; @param tool - the tool; @param reason - why; @param problems - provider-rule problems */
  constructor(server: string, tool: string, reason: string, problems: readonly ProviderSchemaProblem[] = []) {
    super('MCP_TOOL_SCHEMA_UNSUPPORTED', `MCP server ${server}: tool ${tool}: ${reason}`, {
      server,
      tool,
      problems: problems.map((p) => ({ rule: p.rule, path: p.path, message: p.message })),
    });
    this.problems = problems;
  }
}
