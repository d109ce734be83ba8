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

/**
 * A call of a consumed MCP server's tool was refused before anything was sent, because the server changed the tool
 * after it was registered: code `MCP_TOOL_CHANGED` (its input or output schema, description, title or annotations
 * differ from what the host accepted — `details.fields` names which — or, with `details.reason: 'unverified'`, the
 * server announced a change and its tool list could not be listed again) or `MCP_TOOL_REMOVED` (the server no
 * longer lists it). `details` carry `server`, `tool`, `capabilityId`, `reason` (`changed`, `removed`,
 * `unverified`), `fields`. The capability stays disabled until the host registers the server again
 * (`registerMcpServer` with the same name); an `unverified` call may succeed once the list can be read.
 * @public
 */
export class McpToolChangedError extends MediaAgentError {
  /**
   * @param change - the change that disabled the tool: `removed` gives `MCP_TOOL_REMOVED`, any other
   *   `MCP_TOOL_CHANGED`; its server, tool, capability id and changed fields
   * @param message - when given, the tool's list could not be checked (`reason: 'unverified'`) and this says why
   * @param options - the `cause`
   */
  constructor(
    change: {
      change: 'changed' | 'removed' | 'added';
      server: string;
      tool: string;
      capabilityId: string;
      fields: readonly string[];
    },
    message?: string,
    options?: { cause?: unknown },
  ) {
    const removed = change.change === 'removed';
    super(
      removed ? 'MCP_TOOL_REMOVED' : 'MCP_TOOL_CHANGED',
      message ??
        (removed
          ? `MCP server ${change.server} no longer lists tool ${change.tool}: ${change.capabilityId} is disabled until the server is registered again; nothing was sent`
          : `MCP server ${change.server} changed tool ${change.tool} after it was registered (${change.fields.join(', ')} differ): ${change.capabilityId} is disabled until an administrator accepts the change and the server is registered again; nothing was sent`),
      {
        server: change.server,
        tool: change.tool,
        capabilityId: change.capabilityId,
        reason: message ? 'unverified' : change.change,
        fields: [...change.fields],
      },
      options,
    );
  }

  /**
   * The error for a call refused because the server announced a tool change and its list could not be read again.
   * @param server - the server name; @param tool - the tool; @param cause - why listing failed
   */
  static unverified(server: string, tool: string, cause: unknown): McpToolChangedError {
    return new McpToolChangedError(
      { change: 'changed', server, tool, capabilityId: `mcp.${server}.${tool}`, fields: [] },
      `MCP server ${server} announced that its tools changed and they could not be listed again (${cause instanceof Error ? cause.message : String(cause)}); ${tool} was not sent`,
      { cause },
    );
  }
}

/**
 * An MCP server answered `initialize` with a protocol version the installed `@modelcontextprotocol/sdk` does not
 * support. Code `MCP_PROTOCOL_UNSUPPORTED`; `details` carry `server`, `version` (the server's) and `supported` (the
 * versions the client supports, newest first). Nothing of that server was registered.
 * @public
 */
export class McpProtocolUnsupportedError extends MediaAgentError {
  /**
   * @param server - the server name
   * @param version - the version the server answered
   * @param supported - the versions the client supports, newest first
   * @param options - the `cause`
   */
  constructor(server: string, version: string, supported: readonly string[], options?: { cause?: unknown }) {
    super(
      'MCP_PROTOCOL_UNSUPPORTED',
      `MCP server ${server} answered initialize with protocol version ${version}, which this client does not support (it supports ${supported.join(', ')})`,
      { server, version, supported: [...supported] },
      options,
    );
  }
}
