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
  /**
   * The capability's input schema exactly as the invocation path validates it (JSON Schema 2020-12 as
   * plain JSON: `$schema`, `$defs`/`$ref`, `additionalProperties`, `const`, `oneOf`, `format`, … kept;
   * TypeBox's non-JSON markers and the SDK's `x-media-agent-*` provenance marks dropped); `type: 'object'` at the
   * root.
   */
  inputSchema: { type: 'object'; [key: string]: unknown };
  /** Hints from kind and replay policy. */
  annotations: ReturnType<typeof mcpToolAnnotations>;
}

const published = new WeakMap<object, McpToolListing['inputSchema']>();

/** Schema keywords of the SDK's own (provenance marks), never published. */
const SDK_KEYWORD_PREFIX = 'x-media-agent-';

/**
 * The input schema an MCP client is given: the schema the invocation path validates with (`input`), as
 * plain JSON, never the provider-safe rewrite models are offered (`modelInputSchema`, which drops
 * `additionalProperties`, `$defs`, `const`, … that a provider refuses): a client that sends what the
 * listed schema allows is not refused `INPUT_INVALID`, and what it forbids is refused. A root without
 * `type` (a union of objects, which `defineCapability` accepts only when every alternative is an object)
 * gets `type: 'object'` added, which changes nothing it accepts.
 * @internal
 */
export function publishedInputSchema(descriptor: Pick<CapabilityDescriptor, 'input'>): McpToolListing['inputSchema'] {
  const input = descriptor.input as object;
  let schema = published.get(input);
  if (!schema) {
    // The SDK's own provenance marks (`x-media-agent-*`, docs/untrusted-text.md) are enforced here, not by the
    // client: a strict 2020-12 client refuses unknown keywords.
    const json = JSON.parse(
      JSON.stringify(input, (key, value: unknown) => (key.startsWith(SDK_KEYWORD_PREFIX) ? undefined : value)),
    ) as Record<string, unknown>;
    schema = (json.type === 'object' ? json : { type: 'object', ...json }) as McpToolListing['inputSchema'];
    published.set(input, schema);
  }
  return structuredClone(schema);
}

/**
 * The MCP tool of a capability: its id as the name, its title and description, the input schema the
 * invocation path enforces ({@link publishedInputSchema}) and annotations from its kind and replay policy.
 */
export function mcpTool(descriptor: CapabilityDescriptor): McpToolListing {
  return {
    name: descriptor.id,
    title: descriptor.title,
    description: descriptor.description,
    inputSchema: publishedInputSchema(descriptor),
    annotations: mcpToolAnnotations(descriptor),
  };
}
