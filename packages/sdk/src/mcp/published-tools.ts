import type { CapabilityDescriptor } from '../core/capability-descriptor';
import { mcpToolAnnotations } from './tool-annotations';

/**
 * Tool names the runtime answers itself inside runs (plan, tool discovery, result paging, subagents),
 * never published over MCP even if a capability had the name.
 * @public
 */
export const MCP_UNPUBLISHED_TOOL_NAMES: readonly string[] = Object.freeze([
  'update_plan',
  'search_tools',
  'read_tool_result',
  'delegate',
]);

/**
 * First id segments of the runtime's own families (memory, session history, skills), never published over
 * MCP: they belong to runs, not to outside clients.
 * @public
 */
export const MCP_UNPUBLISHED_FAMILIES: readonly string[] = Object.freeze(['memory', 'history', 'skills', 'runtime']);

/** Whether a capability may be published at all (before the host's own filter). */
export function publishable(descriptor: Pick<CapabilityDescriptor, 'id'>): boolean {
  if (MCP_UNPUBLISHED_TOOL_NAMES.includes(descriptor.id)) return false;
  return !MCP_UNPUBLISHED_FAMILIES.includes(descriptor.id.split('.')[0]!);
}

/** An MCP `Tool` as listed by `tools/list`. */
export interface McpToolListing {
  /** The capability id. */
  name: string;
  /** The capability's title. */
  title: string;
  /** The capability's description. */
  description: string;
  /** The input schema models are offered (plain JSON Schema, `type: 'object'`). */
  inputSchema: { type: 'object'; [key: string]: unknown };
  /** Hints from kind and replay policy. */
  annotations: ReturnType<typeof mcpToolAnnotations>;
}

/**
 * The MCP tool of a capability: its id as the name, its title and description, the input schema models
 * are offered (the provider-safe rewrite when there is one: plain JSON, no TypeBox markers) and annotations
 * from its kind and replay policy.
 */
export function mcpTool(descriptor: CapabilityDescriptor): McpToolListing {
  const schema = JSON.parse(JSON.stringify(descriptor.modelInputSchema ?? descriptor.input)) as Record<string, unknown>;
  return {
    name: descriptor.id,
    title: descriptor.title,
    description: descriptor.description,
    inputSchema: { ...schema, type: 'object' },
    annotations: mcpToolAnnotations(descriptor),
  };
}
