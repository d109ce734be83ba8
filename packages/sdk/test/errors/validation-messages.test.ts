// Validation messages name the accepted values: a union of literals, an enum or a const says
// "must be one of 'movie', 'tv'; got 'film'" with the path, not "must be equal to constant" once per alternative.
import Type from 'typebox';
import { Compile } from 'typebox/compile';
import { afterEach, describe, expect, it } from 'vitest';
import { schemaIssues } from '../../src/core/schema-issues';
import { ConsoleLogger, createAgentHost, defineCapability, type AgentHost } from '../../src/index';
import { parseToolArguments } from '../../src/models/tools';

const Kind = Type.Union([Type.Literal('movie'), Type.Literal('tv')]);
const Input = Type.Object({
  kind: Kind,
  quality: Type.Optional(Type.Enum(['720p', '1080p', '2160p'])),
  version: Type.Optional(Type.Literal(2)),
  season: Type.Optional(Type.Union([Type.Integer({ minimum: 1 }), Type.Null()])),
  language: Type.Optional(Type.Union([Type.Literal('en'), Type.Literal('fr'), Type.Null()])),
  tags: Type.Optional(Type.Array(Kind)),
  title: Type.Optional(Type.String()),
});

const issues = (value: unknown) => schemaIssues(Compile(Input).Errors(value), value);

describe('schemaIssues (pure)', () => {
  it.each([
    // ajv-validator/ajv#2475: a union of literals reported only "must be equal to constant" (with the first value)
    [{ kind: 'film' }, [{ path: '/kind', message: "must be one of 'movie', 'tv'; got 'film'" }]],
    [{ kind: 7 }, [{ path: '/kind', message: "must be one of 'movie', 'tv'; got 7" }]],
    // ajv-validator/ajv#786, atlassian/better-ajv-errors#162: enum and const messages without their values
    [
      { kind: 'tv', quality: '4k' },
      [{ path: '/quality', message: "must be one of '720p', '1080p', '2160p'; got '4k'" }],
    ],
    [{ kind: 'tv', version: 3 }, [{ path: '/version', message: 'must be 2; got 3' }]],
    [{ kind: 'tv', language: 'de' }, [{ path: '/language', message: "must be one of 'en', 'fr', null; got 'de'" }]],
    [
      { kind: 'tv', tags: ['movie', 'anime'] },
      [{ path: '/tags/1', message: "must be one of 'movie', 'tv'; got 'anime'" }],
    ],
    [{ kind: 'tv', title: 12 }, [{ path: '/title', message: 'must be string; got 12' }]],
    [{}, [{ path: '', message: 'must have required properties kind' }]],
  ])('%j', (value, expected) => {
    expect(issues(value)).toEqual(expected);
  });

  it('keeps the messages of a union that is not of literals (an integer or null)', () => {
    const found = issues({ kind: 'tv', season: 'one' });
    expect(found.every((i) => i.path === '/season')).toBe(true);
    expect(found.map((i) => i.message)).toContain('must match a schema in anyOf');
  });

  it('quotes a long value cut short', () => {
    const [issue] = issues({ kind: 'x'.repeat(500) });
    expect(issue!.message.length).toBeLessThan(120);
  });
});

describe('where validation errors reach people and models', () => {
  const hosts: AgentHost[] = [];
  afterEach(async () => {
    for (const h of hosts.splice(0)) await h.stop();
  });

  it('host.invoke: INPUT_INVALID names the path and the accepted values', async () => {
    const host = createAgentHost({ logger: new ConsoleLogger('silent') });
    hosts.push(host);
    let called = 0;
    host.capabilities.register(
      defineCapability({
        id: 'catalog.lookup',
        version: 1,
        title: 'Lookup',
        description: 'Finds a title.',
        kind: 'read',
        replay: 'safe',
        input: Input,
        output: Type.Object({ ok: Type.Boolean() }),
        handler: async () => {
          called++;
          return { ok: true };
        },
      }),
    );
    await host.start();
    const error = await host.invoke('catalog.lookup', { kind: 'film' }, { actor: 'user:admin' }).catch((e) => e);
    expect(error).toMatchObject({ code: 'INPUT_INVALID' });
    expect(error.message).toContain("/kind: must be one of 'movie', 'tv'; got 'film'");
    expect(error.message).not.toContain('must be equal to constant');
    expect(error.details.issues).toEqual([{ path: '/kind', message: "must be one of 'movie', 'tv'; got 'film'" }]);
    expect(called).toBe(0);
  });

  it("a model's tool call arguments: TOOL_ARGS_INVALID names the path and the accepted values", () => {
    const tool = {
      name: 'catalog_lookup',
      description: 'Finds a title.',
      inputSchema: Input as unknown as Record<string, unknown>,
    };
    const parsed = parseToolArguments('{"kind":"film"}', tool, 'catalog_lookup');
    expect(parsed).toEqual({
      ok: false,
      failure: {
        code: 'TOOL_ARGS_INVALID',
        message: "arguments do not match the schema: /kind: must be one of 'movie', 'tv'; got 'film'",
      },
    });
  });
});

describe('the memory tools and the HTTP router say which values are accepted too', () => {
  it('memory: an unknown action names the accepted actions and what was given', async () => {
    const { parseMemoryInput } = await import('../../src/memory/memory-input');
    let message = '';
    try {
      parseMemoryInput({ action: 'ad', content: 'x' });
    } catch (error) {
      message = (error as Error).message;
      expect((error as { code?: string }).code).toBe('MEMORY_INPUT_INVALID');
    }
    expect(message).toMatch(/must be one of .*'add'.*; got 'ad'/);
    expect(message).not.toContain('must be equal to constant');
  });
});
