// Attribute names of the OpenTelemetry semantic conventions for generative AI
// (https://opentelemetry.io/docs/specs/semconv/gen-ai/), and the SDK's own `media_agent.*` names.

/** `gen_ai.*` attribute names used on the runtime's spans. */
export const GEN_AI = {
  operationName: 'gen_ai.operation.name',
  providerName: 'gen_ai.provider.name',
  agentName: 'gen_ai.agent.name',
  agentId: 'gen_ai.agent.id',
  conversationId: 'gen_ai.conversation.id',
  requestModel: 'gen_ai.request.model',
  requestMaxTokens: 'gen_ai.request.max_tokens',
  usageInputTokens: 'gen_ai.usage.input_tokens',
  usageOutputTokens: 'gen_ai.usage.output_tokens',
  usageCacheReadTokens: 'gen_ai.usage.cache_read.input_tokens',
  usageCacheCreationTokens: 'gen_ai.usage.cache_creation.input_tokens',
  responseFinishReasons: 'gen_ai.response.finish_reasons',
  responseId: 'gen_ai.response.id',
  responseModel: 'gen_ai.response.model',
  toolDescription: 'gen_ai.tool.description',
  toolName: 'gen_ai.tool.name',
  toolType: 'gen_ai.tool.type',
  toolCallId: 'gen_ai.tool.call.id',
  toolCallArguments: 'gen_ai.tool.call.arguments',
  toolCallResult: 'gen_ai.tool.call.result',
  inputMessages: 'gen_ai.input.messages',
  outputMessages: 'gen_ai.output.messages',
  systemInstructions: 'gen_ai.system_instructions',
  errorType: 'error.type',
  serverAddress: 'server.address',
  serverPort: 'server.port',
} as const;

/** Attribute names of the MCP semantic conventions (https://opentelemetry.io/docs/specs/semconv/gen-ai/mcp/). */
export const MCP = {
  methodName: 'mcp.method.name',
  protocolVersion: 'mcp.protocol.version',
  sessionId: 'mcp.session.id',
  jsonrpcRequestId: 'jsonrpc.request.id',
  networkTransport: 'network.transport',
} as const;

/** The SDK's own attribute names (what the GenAI conventions have no name for). */
export const MEDIA_AGENT = {
  runId: 'media_agent.run.id',
  runMode: 'media_agent.run.mode',
  runParentId: 'media_agent.run.parent_id',
  runStatus: 'media_agent.run.status',
  capabilityId: 'media_agent.capability.id',
  capabilityKind: 'media_agent.capability.kind',
  invocationId: 'media_agent.invocation.id',
  invocationStatus: 'media_agent.invocation.status',
  idempotencyKey: 'media_agent.idempotency_key',
  approvalId: 'media_agent.approval.id',
  approvalStatus: 'media_agent.approval.status',
  approvalRequestedId: 'media_agent.approval.requested_id',
  planType: 'media_agent.plan.type',
  planId: 'media_agent.plan.id',
  /** How many of the oldest messages a content attribute left out to stay within its byte budget. */
  messagesDropped: 'media_agent.gen_ai.messages.dropped',
} as const;

/** `gen_ai.operation.name` values. */
export const OPERATION = {
  invokeAgent: 'invoke_agent',
  chat: 'chat',
  executeTool: 'execute_tool',
} as const;

/** The agent name on `invoke_agent` spans. */
export const AGENT_NAME = 'media-agent';

/** The instrumentation scope name of the runtime's tracer. */
export const TRACER_NAME = '@media-agent/sdk';
