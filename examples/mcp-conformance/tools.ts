/**
 * The official MCP conformance suite's server test tools, as media-agent capabilities (ids = the suite's tool
 * names), registered through the normal path: `host.capabilities.register(defineCapability(...))`.
 *
 * Each capability is a `read` (nothing to authorize, no ledger): the suite's client calls them without any
 * approval. What each returns follows the suite's scenario of the same name (docs/mcp-conformance.md).
 */
import Type from 'typebox';
import { defineCapability, type AgentHost } from '@media-agent/sdk';

/** A 1×1 red PNG (base64), the suite's suggested minimal test image. */
export const RED_PIXEL_PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==';

/** A minimal WAV file (44-byte header, 1 silent sample, 8 kHz mono 8-bit), base64. */
export const SILENT_WAV = wav();

function wav(): string {
  const header = Buffer.alloc(45);
  header.write('RIFF', 0, 'latin1');
  header.writeUInt32LE(37, 4);
  header.write('WAVE', 8, 'latin1');
  header.write('fmt ', 12, 'latin1');
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20); // PCM
  header.writeUInt16LE(1, 22); // mono
  header.writeUInt32LE(8000, 24);
  header.writeUInt32LE(8000, 28);
  header.writeUInt16LE(1, 32);
  header.writeUInt16LE(8, 34);
  header.write('data', 36, 'latin1');
  header.writeUInt32LE(1, 40);
  header.writeUInt8(128, 44); // silence
  return header.toString('base64');
}

/** The MCP content parts a capability output carries (the shape of an MCP `CallToolResult.content`). */
const Content = Type.Object({ content: Type.Array(Type.Record(Type.String(), Type.Unknown())) });
const NoInput = Type.Object({});
const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });

const base = { version: 1, kind: 'read', replay: 'safe' } as const;
const text = (t: string) => ({ content: [{ type: 'text', text: t }] });
/** Why a capability host cannot serve the sampling and elicitation tools (see docs/mcp-conformance.md). */
export const CANNOT_ASK_CALLER =
  'a capability cannot ask the MCP caller to sample a model or to elicit input: the host, not the caller, supplies what a handler needs';

/** The suite's server test tools as capabilities. */
export function conformanceCapabilities() {
  return [
    defineCapability({
      ...base,
      id: 'test_simple_text',
      title: 'Simple text',
      description: 'Returns one text part.',
      input: NoInput,
      output: Content,
      handler: async () => text('This is a simple text response for testing.'),
    }),
    defineCapability({
      ...base,
      id: 'test_image_content',
      title: 'Image content',
      description: 'Returns a 1×1 PNG as an image part.',
      input: NoInput,
      output: Content,
      handler: async () => ({ content: [{ type: 'image', data: RED_PIXEL_PNG, mimeType: 'image/png' }] }),
    }),
    defineCapability({
      ...base,
      id: 'test_audio_content',
      title: 'Audio content',
      description: 'Returns a minimal WAV as an audio part.',
      input: NoInput,
      output: Content,
      handler: async () => ({ content: [{ type: 'audio', data: SILENT_WAV, mimeType: 'audio/wav' }] }),
    }),
    defineCapability({
      ...base,
      id: 'test_embedded_resource',
      title: 'Embedded resource',
      description: 'Returns an embedded text resource.',
      input: NoInput,
      output: Content,
      handler: async () => ({
        content: [
          {
            type: 'resource',
            resource: {
              uri: 'test://embedded-resource',
              mimeType: 'text/plain',
              text: 'This is an embedded resource content.',
            },
          },
        ],
      }),
    }),
    defineCapability({
      ...base,
      id: 'test_multiple_content_types',
      title: 'Multiple content types',
      description: 'Returns a text, an image and a resource part.',
      input: NoInput,
      output: Content,
      handler: async () => ({
        content: [
          { type: 'text', text: 'Multiple content types test:' },
          { type: 'image', data: RED_PIXEL_PNG, mimeType: 'image/png' },
          {
            type: 'resource',
            resource: {
              uri: 'test://mixed-content-resource',
              mimeType: 'application/json',
              text: JSON.stringify({ test: 'data', value: 123 }),
            },
          },
        ],
      }),
    }),
    defineCapability({
      ...base,
      id: 'test_tool_with_logging',
      title: 'Tool with logging',
      description: 'Sends its caller three info log messages, 50 ms apart, while it runs.',
      input: NoInput,
      output: Content,
      handler: async (_input, ctx) => {
        ctx.logToCaller('info', 'Tool execution started');
        await sleep(50, ctx.signal);
        ctx.logToCaller('info', 'Tool processing data');
        await sleep(50, ctx.signal);
        ctx.logToCaller('info', 'Tool execution completed');
        return text('Tool with logging executed successfully');
      },
    }),
    defineCapability({
      ...base,
      id: 'test_error_handling',
      title: 'Error handling',
      description: 'Always fails.',
      input: NoInput,
      output: Content,
      handler: async () => {
        throw new Error('This tool intentionally returns an error for testing');
      },
    }),
    defineCapability({
      ...base,
      id: 'test_tool_with_progress',
      title: 'Tool with progress',
      description: 'Reports progress 0, 50 and 100 of 100, 50 ms apart.',
      input: NoInput,
      output: Content,
      handler: async (_input, ctx) => {
        for (const [i, step] of [0, 50, 100].entries()) {
          if (i > 0) await sleep(50, ctx.signal);
          ctx.progress({ progress: step, total: 100, message: `Completed step ${i + 1} of 3` });
        }
        return text('Progress tool executed');
      },
    }),
    ...(
      [
        ['test_sampling', 'Sampling', Type.Object({ prompt: Type.String() })],
        ['test_elicitation', 'Elicitation', Type.Object({ message: Type.String() })],
        ['test_elicitation_sep1034_defaults', 'Elicitation with defaults', NoInput],
        ['test_elicitation_sep1330_enums', 'Elicitation with enums', NoInput],
      ] as const
    ).map(([id, title, input]) =>
      defineCapability({
        ...base,
        id,
        title,
        description: `Would ask the MCP caller (${title.toLowerCase()}); fails: ${CANNOT_ASK_CALLER}.`,
        input,
        output: Content,
        handler: async () => {
          // The MCP specification lets a server that cannot sample/elicit answer with an error.
          throw new Error(CANNOT_ASK_CALLER);
        },
      }),
    ),
    defineCapability({
      ...base,
      id: 'json_schema_2020_12_tool',
      title: 'JSON Schema 2020-12 tool',
      description: 'Tool with JSON Schema 2020-12 features',
      input: Type.Unsafe<{ name?: string; address?: { street?: string; city?: string } }>({
        $schema: 'https://json-schema.org/draft/2020-12/schema',
        type: 'object',
        $defs: {
          address: { type: 'object', properties: { street: { type: 'string' }, city: { type: 'string' } } },
        },
        properties: { name: { type: 'string' }, address: { $ref: '#/$defs/address' } },
        additionalProperties: false,
      }),
      output: Content,
      handler: async (input) => text(`received ${JSON.stringify(input)}`),
    }),
  ];
}

/** Registers every conformance capability on a host; returns their ids. */
export function registerConformanceCapabilities(host: AgentHost): string[] {
  return conformanceCapabilities().map((capability) => {
    host.capabilities.register(capability);
    return capability.id;
  });
}
