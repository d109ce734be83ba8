import Type from 'typebox';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { defineCapability, type HandlerContext } from '../../src/index';
import { DuplicateCapabilityError, InvalidCapabilityError } from '../../src/capabilities/errors';
import { makeHost } from '../helpers';

const base = {
  version: 1,
  title: 'T',
  description: 'D',
  kind: 'read' as const,
  replay: 'safe' as const,
  input: Type.Object({}),
  output: Type.Object({}),
  handler: async () => ({}),
};

describe('defineCapability', () => {
  it('infers the handler input and output types from the TypeBox schemas', () => {
    const cap = defineCapability({
      ...base,
      id: 'release.inspect',
      input: Type.Object({ releaseId: Type.String(), season: Type.Optional(Type.Integer()) }),
      output: Type.Object({ title: Type.String(), sizeBytes: Type.Number() }),
      handler: async (input, ctx) => {
        expectTypeOf(input).toEqualTypeOf<{ releaseId: string; season?: number }>();
        expectTypeOf(ctx).toEqualTypeOf<HandlerContext>();
        return { title: input.releaseId, sizeBytes: 1 };
      },
    });
    type Out = Awaited<ReturnType<typeof cap.handler>>;
    expectTypeOf<Out>().toMatchTypeOf<{ title: string; sizeBytes: number } | { readonly __pending: true }>();
    expect(Object.isFrozen(cap)).toBe(true);
  });

  it('rejects malformed definitions with CAPABILITY_DEFINITION_INVALID', () => {
    const bad: Array<Record<string, unknown>> = [
      { ...base, id: '' },
      { ...base, id: 'has space' },
      { ...base, id: 'a'.repeat(129) },
      { ...base, id: 'x.y', version: 0 },
      { ...base, id: 'x.y', version: 1.5 },
      { ...base, id: 'x.y', kind: 'delete' },
      { ...base, id: 'x.y', replay: 'sometimes' },
      { ...base, id: 'x.y', handler: undefined },
      { ...base, id: 'x.y', input: 'not a schema' },
      { ...base, id: 'x.y', title: '' },
    ];
    for (const definition of bad) {
      expect(() => defineCapability(definition as never)).toThrow(InvalidCapabilityError);
    }
  });
});

describe('CapabilityRegistry', () => {
  it('registers, gets and lists capabilities', async () => {
    const { host } = await makeHost();
    expect(host.capabilities.list().map((c) => c.id)).toEqual([
      'inventory.query',
      'download.plan',
      'download.submit',
      'organize.execute',
    ]);
    expect(host.capabilities.get('download.submit')).toMatchObject({
      id: 'download.submit',
      kind: 'execute',
      replay: 'never',
      policy: 'acquisition',
    });
    expect(host.capabilities.list({ kind: 'read' }).map((c) => c.id)).toEqual(['inventory.query']);
    expect(host.capabilities.has('download.submit')).toBe(true);
    expect(host.capabilities.has('nope')).toBe(false);
  });

  it('two capabilities with one id fail at registration with a typed error naming both', async () => {
    const { host } = await makeHost();
    const clash = defineCapability({ ...base, id: 'inventory.query', title: 'Another inventory', version: 3 });
    try {
      host.capabilities.register(clash);
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(DuplicateCapabilityError);
      expect((error as DuplicateCapabilityError).code).toBe('CAPABILITY_DUPLICATE');
      expect((error as Error).message).toContain('Query the library inventory');
      expect((error as Error).message).toContain('Another inventory');
    }
    expect(host.capabilities.get('inventory.query').title).toBe('Query the library inventory');
  });

  it('refuses objects that were not made by defineCapability', async () => {
    const { host } = await makeHost();
    expect(() => host.capabilities.register({ ...base, id: 'raw.cap' } as never)).toThrow(InvalidCapabilityError);
  });

  it('get of an unknown id is CAPABILITY_NOT_FOUND', async () => {
    const { host } = await makeHost();
    expect(() => host.capabilities.get('nope.nothing')).toThrow(
      expect.objectContaining({ code: 'CAPABILITY_NOT_FOUND' }),
    );
  });

  it('searches by id, title, description, tags and aliases', async () => {
    const { host } = await makeHost();
    expect(host.capabilities.search('download.submit')[0]?.capability.id).toBe('download.submit');
    expect(host.capabilities.search('submit')[0]?.capability.id).toBe('download.submit');
    expect(host.capabilities.search('inventory')[0]?.capability.id).toBe('inventory.query');
    expect(host.capabilities.search('layout')[0]?.capability.id).toBe('organize.execute');
    expect(host.capabilities.search('organize').map((h) => h.capability.id)).toContain('organize.execute');
    expect(host.capabilities.search('zzz-nothing')).toEqual([]);
  });

  it('finds organize capabilities by the CJK alias 整理, also inside a longer query', async () => {
    const { host } = await makeHost();
    expect(host.capabilities.search('整理')[0]?.capability.id).toBe('organize.execute');
    expect(host.capabilities.search('整理文件')[0]?.capability.id).toBe('organize.execute');
    expect(host.capabilities.search('查库存')[0]?.capability.id).toBe('inventory.query');
  });

  it('limits search results', async () => {
    const { host } = await makeHost();
    expect(host.capabilities.search('', 2)).toHaveLength(2);
    expect(host.capabilities.search('download library inventory organize', 1)).toHaveLength(1);
  });
});
