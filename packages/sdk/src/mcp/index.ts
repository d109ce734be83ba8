export { createMcpServer, type McpServerOptions } from './mcp-server';
export { MCP_IDEMPOTENCY_KEY_META, mcpCallScope } from './client-idempotency';
export {
  serveMcpStdio,
  createMcpHttpHandler,
  type McpServing,
  type McpHttpHandler,
  type McpHttpHandlerOptions,
} from './transports';
export type { McpHttpGuardOptions } from './http-guard';
export type { McpAuthenticate, McpCaller } from './caller';
export { mcpToolAnnotations } from './tool-annotations';
export { MCP_UNPUBLISHED_TOOL_NAMES, MCP_UNPUBLISHED_FAMILIES } from './published-tools';
export { registerMcpServer } from './register-server';
export type { McpServerRegistration, McpRegisteredTool, McpRegisteredTools } from './registration-types';
export {
  McpToolNameError,
  McpToolSchemaError,
  McpToolChangedError,
  McpProtocolUnsupportedError,
} from './consume-errors';
export type { McpToolChange, McpToolField } from './tool-drift';
export type {
  McpElicitationHandler,
  McpElicitationRequest,
  McpElicitationContext,
  McpElicitationAnswer,
  McpElicitationValue,
} from './elicitation';
export { MCP_DEFAULT_MAX_OUTPUT_BYTES, McpToolOutput, type McpToolResultOutput } from './tool-output';
