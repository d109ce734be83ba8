// Fixtures shared by the tool-discovery and compaction tests (and the context benchmark).
import { STANDARD_CAPABILITIES } from '../../src/media/contracts';
import type { CapabilityDescriptor } from '../../src/core/capability-descriptor';
import type { AssistantMessage, ModelMessage, ToolResultMessage } from '../../src/models/types';
import { toolResultMessage } from '../../src/runtime/tool-result';

/** The standard media capabilities as descriptors (real ids, titles, tags and CJK aliases). */
export function standardDescriptors(): CapabilityDescriptor[] {
  return Object.values(STANDARD_CAPABILITIES).map((c) => {
    const contract = c as unknown as CapabilityDescriptor & { tags?: string[]; aliases?: string[]; policy?: string };
    return {
      id: contract.id,
      version: 1,
      title: contract.title,
      description: contract.description,
      kind: contract.kind,
      replay: contract.replay,
      input: contract.input,
      output: contract.output,
      tags: contract.tags ?? [],
      aliases: contract.aliases ?? [],
      policy: contract.policy,
      target: undefined,
    };
  });
}

/** A synthetic capability whose schema has `fields` string properties (bigger schema → more tokens). */
export function syntheticDescriptor(
  n: number,
  fields = 4,
  extra: Partial<CapabilityDescriptor> = {},
): CapabilityDescriptor {
  const properties: Record<string, unknown> = {};
  for (let f = 0; f < fields; f++)
    properties[`field_${f}`] = {
      type: 'string',
      description: `Field ${f} of plugin tool ${n}: an opaque value the plugin understands.`,
    };
  return {
    id: `plugin.p${n}.action`,
    version: 1,
    title: `Plugin action ${n}`,
    description: `Runs action ${n} of a third-party plugin.`,
    kind: 'read',
    replay: 'safe',
    input: { type: 'object', properties } as never,
    output: { type: 'object' } as never,
    tags: ['plugin'],
    aliases: [],
    policy: undefined,
    target: undefined,
    ...extra,
  };
}

/** One tool turn: an assistant message with `calls` tool calls and their results (each result `resultChars` long). */
export function toolTurn(
  turn: number,
  calls = 1,
  resultChars = 400,
  status: 'succeeded' | 'unknown' | 'failed' = 'succeeded',
): ModelMessage[] {
  const assistant: AssistantMessage = {
    role: 'assistant',
    content: [
      { type: 'text', text: `Step ${turn}: looking things up.` },
      ...Array.from({ length: calls }, (_, k) => ({
        type: 'tool_call' as const,
        id: `call_${turn}_${k}`,
        name: 'media.search',
        input: { query: `title ${turn}-${k}` },
      })),
    ],
    stopReason: 'tool_use',
  };
  const results: ToolResultMessage[] = Array.from({ length: calls }, (_, k) =>
    toolResultMessage(
      `call_${turn}_${k}`,
      'media.search',
      status === 'failed'
        ? { status, error: { code: 'X', message: 'no' } }
        : {
            status,
            output: { turn, k, text: `result ${turn}-${k} `.repeat(Math.ceil(resultChars / 14)).slice(0, resultChars) },
          },
    ),
  );
  return [assistant, ...results];
}

/** A long conversation: the goal, then `turns` tool turns, with a user steering message every 10 turns. */
export function longConversation(turns: number, resultChars = 400): ModelMessage[] {
  const out: ModelMessage[] = [
    { role: 'user', content: 'Find Dune (2021) in 4K, download it and organize it into the library.' },
  ];
  for (let t = 0; t < turns; t++) {
    if (t > 0 && t % 10 === 0) out.push({ role: 'user', content: `Steering ${t}: prefer releases with Atmos.` });
    out.push(...toolTurn(t, 1 + (t % 3), resultChars));
  }
  return out;
}

/** Every tool call has exactly one result after it, and every result follows its call. */
export function everyCallPaired(messages: readonly ModelMessage[]): boolean {
  const seen = new Set<string>();
  const answered = new Set<string>();
  for (const m of messages) {
    if (m.role === 'assistant') for (const p of m.content) if (p.type === 'tool_call') seen.add(p.id);
    if (m.role === 'tool') {
      if (!seen.has(m.toolCallId) || answered.has(m.toolCallId)) return false;
      answered.add(m.toolCallId);
    }
  }
  return [...seen].every((id) => answered.has(id));
}
