import { describe, expect, it } from 'vitest';
import { complete, collectStream } from '../../src/models/complete';
import { createModelProvider } from '../../src/models/factory';
import { ScriptTemplateError } from '../../src/models/errors';
import { resolveTemplates, ScriptedProvider, type FakeScript } from '../../src/models/scripted';
import type { AssistantMessage, ModelMessage, ModelRequest, ModelTool } from '../../src/models/types';
import { drain, ofType } from './helpers';

const obj = (properties: Record<string, unknown>, required: string[] = []) => ({
  type: 'object',
  properties,
  required,
});
const tools: ModelTool[] = [
  { name: 'inventory.query', description: 'q', inputSchema: obj({ query: { type: 'string' } }, ['query']) },
  {
    name: 'download.plan',
    description: 'p',
    inputSchema: obj({ slotId: { type: 'string' }, sourceReleaseId: { type: 'string' } }, ['slotId']),
  },
  { name: 'download.submit', description: 's', inputSchema: obj({ planId: { type: 'string' } }, ['planId']) },
];

/** Seed 004's example script, verbatim. */
const seedScript = `{
  "match": "收进来",
  "steps": [
    { "text": "查库存", "toolCalls": [{ "capability": "inventory.query", "input": { "query": "沙丘2" } }] },
    { "toolCalls": [{ "capability": "download.plan",
        "input": { "slotId": "{{inventory.query.items.0.slots.0.id}}", "sourceReleaseId": "<id>" } }] },
    { "toolCalls": [{ "capability": "download.submit", "input": { "planId": "{{download.plan.plan.id}}" } }] }
  ],
  "finalText": "已提交"
}`;

/** Plays the runtime's part: answers each tool call with the given results and loops. */
async function drive(
  p: ScriptedProvider,
  goal: string,
  results: Record<string, unknown>,
  maxTurns = 10,
): Promise<ModelMessage[]> {
  const messages: ModelMessage[] = [{ role: 'user', content: goal }];
  for (let i = 0; i < maxTurns; i++) {
    const turn = await complete(p, { model: 'fake-model', messages, tools });
    messages.push(turn.message);
    if (turn.stopReason !== 'tool_use') break;
    for (const part of turn.message.content) {
      if (part.type === 'tool_call')
        messages.push({
          role: 'tool',
          toolCallId: part.id,
          name: part.name,
          status: 'ok',
          content: JSON.stringify(results[part.name] ?? {}),
        });
    }
  }
  return messages;
}

const worldResults = {
  'inventory.query': { items: [{ slots: [{ id: 'slot-9' }] }] },
  'download.plan': { plan: { id: 'plan-4' } },
  'download.submit': { ok: true },
};

describe('ScriptedProvider', () => {
  it('reads a repeated result the context replaced by { sameAsCallId } as the earlier result', async () => {
    const p = new ScriptedProvider({
      scripts: {
        steps: [
          { toolCalls: [{ capability: 'download.plan', input: {} }] },
          { toolCalls: [{ capability: 'download.plan', input: {} }] },
          { toolCalls: [{ capability: 'download.submit', input: { planId: '{{download.plan.plan.id}}' } }] },
        ],
      },
    });
    const messages: ModelMessage[] = [{ role: 'user', content: 'go' }];
    const envelope = JSON.stringify({ status: 'succeeded', note: 'done', output: { plan: { id: 'plan-4' } } });
    let planCalls = 0;
    for (let i = 0; i < 5; i++) {
      const turn = await complete(p, { model: 'fake-model', messages, tools });
      messages.push(turn.message);
      if (turn.stopReason !== 'tool_use') break;
      for (const part of turn.message.content)
        if (part.type === 'tool_call') {
          const repeat = part.name === 'download.plan' && planCalls++ > 0;
          const content = repeat
            ? JSON.stringify({ status: 'succeeded', note: 'identical to the earlier result', sameAsCallId: 'first' })
            : envelope;
          messages.push({
            role: 'tool',
            toolCallId: planCalls === 1 && !repeat ? 'first' : part.id,
            name: part.name,
            status: 'ok',
            content,
          });
        }
    }
    const submit = messages
      .flatMap((m) => (m.role === 'assistant' ? m.content : []))
      .find((c) => c.type === 'tool_call' && c.name === 'download.submit');
    expect(submit).toMatchObject({ input: { planId: 'plan-4' } });
  });

  it('plays the seed 004 JSON script: steps in order, templates resolved from the latest results, then the final text', async () => {
    const p = new ScriptedProvider({ scripts: seedScript });
    const messages = await drive(p, '把沙丘2收进来', worldResults);
    const calls = messages.flatMap((m) =>
      m.role === 'assistant' ? m.content.filter((c) => c.type === 'tool_call') : [],
    );
    expect(calls.map((c) => [c.name, c.input])).toEqual([
      ['inventory.query', { query: '沙丘2' }],
      ['download.plan', { slotId: 'slot-9', sourceReleaseId: '<id>' }],
      ['download.submit', { planId: 'plan-4' }],
    ]);
    expect((messages.at(-1) as AssistantMessage).content).toEqual([{ type: 'text', text: '已提交' }]);
  });

  it('chooses the first script whose match (substring or regex) fits the goal', async () => {
    const scripts: FakeScript[] = [
      { name: 'a', match: { regex: '^delete', flags: 'i' }, finalText: 'A' },
      { name: 'b', match: /look/, finalText: 'B' },
      { name: 'c', finalText: 'C' },
    ];
    const p = new ScriptedProvider({ scripts });
    const say = async (goal: string) =>
      (await complete(p, { model: 'm', messages: [{ role: 'user', content: goal }] })).message.content;
    expect(await say('DELETE all')).toEqual([{ type: 'text', text: 'A' }]);
    expect(await say('look around')).toEqual([{ type: 'text', text: 'B' }]);
    expect(await say('anything')).toEqual([{ type: 'text', text: 'C' }]);
  });

  it('computes inputs and texts given as functions of the context', async () => {
    const p = new ScriptedProvider({
      scripts: {
        steps: [
          { toolCalls: [{ capability: 'inventory.query', input: (ctx) => ({ query: ctx.goal.toUpperCase() }) }] },
        ],
        finalText: (ctx) => `turn ${ctx.turn}`,
      },
    });
    const messages = await drive(p, 'dune', worldResults);
    const call = (messages[1] as AssistantMessage).content[0];
    expect(call).toMatchObject({ name: 'inventory.query', input: { query: 'DUNE' } });
    expect((messages.at(-1) as AssistantMessage).content).toEqual([{ type: 'text', text: 'turn 1' }]);
  });

  it('uses the built-in default script when none is given: one inventory query, an honest report, no writes', async () => {
    const p = new ScriptedProvider();
    const messages = await drive(p, '看看库里有什么', { 'inventory.query': { items: [1, 2, 3] } });
    const calls = messages.flatMap((m) =>
      m.role === 'assistant' ? m.content.filter((c) => c.type === 'tool_call') : [],
    );
    expect(calls.map((c) => c.name)).toEqual(['inventory.query']);
    const final = (messages.at(-1) as AssistantMessage).content[0];
    expect(final).toMatchObject({ type: 'text', text: expect.stringContaining('3 item(s)') });
    expect(final).toMatchObject({ text: expect.stringContaining('nothing was downloaded, changed or deleted') });
  });

  it('streams text and tool arguments as several deltas, like a real provider', async () => {
    const p = new ScriptedProvider({
      scripts: {
        steps: [
          {
            text: 'Looking at the library now.',
            toolCalls: [{ capability: 'inventory.query', input: { query: 'The Long Goodbye' } }],
          },
        ],
      },
      chunkSize: 5,
    });
    const events = await drain(p.stream({ model: 'm', messages: [{ role: 'user', content: 'x' }], tools }));
    expect(ofType(events, 'text_delta').length).toBeGreaterThan(1);
    expect(ofType(events, 'tool_call_delta').length).toBeGreaterThan(1);
    expect(ofType(events, 'tool_call_end')[0]).toMatchObject({ ok: true, input: { query: 'The Long Goodbye' } });
    expect(events.map((e) => e.type).slice(-2)).toEqual(['usage', 'done']);
  });

  it('validates scripted tool inputs against the offered schema like a real provider', async () => {
    const p = new ScriptedProvider({
      scripts: { steps: [{ toolCalls: [{ capability: 'download.submit', input: { planId: 5 } }] }] },
    });
    const turn = await collectStream(p.stream({ model: 'm', messages: [{ role: 'user', content: 'x' }], tools }));
    expect(turn.toolCallFailures.call_scripted_0_0?.code).toBe('TOOL_ARGS_INVALID');
  });

  it('records every request', async () => {
    const p = new ScriptedProvider({ scripts: { finalText: 'ok' } });
    const req: ModelRequest = { model: 'm', messages: [{ role: 'user', content: 'hello' }] };
    await complete(p, req);
    await complete(p, req);
    expect(p.requests).toEqual([req, req]);
  });

  it('records each message as it was when first sent, copying it once however many turns carry it', async () => {
    const p = new ScriptedProvider({ scripts: { steps: [{ text: 'ok' }], finalText: 'done' } });
    const goal: ModelMessage = { role: 'user', content: 'hello' };
    await complete(p, { model: 'm', messages: [goal] });
    const reply: ModelMessage = { role: 'assistant', content: [{ type: 'text', text: 'ok' }] };
    await complete(p, { model: 'm', messages: [goal, reply] });
    expect(p.requests[1]!.messages).toEqual([goal, reply]);
    expect(p.requests[1]!.messages[0]).toBe(p.requests[0]!.messages[0]); // one copy, shared by both records
    expect(p.requests[0]!.messages[0]).not.toBe(goal);
  });

  it('ends an exhausted script with a SCRIPT_EXHAUSTED error instead of hanging', async () => {
    const p = new ScriptedProvider({ scripts: { finalText: 'only' } });
    const messages: ModelMessage[] = [
      { role: 'user', content: 'x' },
      { role: 'assistant', content: [{ type: 'text', text: 'only' }] },
      { role: 'user', content: 'more?' },
    ];
    const events = await drain(p.stream({ model: 'm', messages }));
    expect(ofType(events, 'error')[0]?.error.code).toBe('SCRIPT_EXHAUSTED');
    expect(events.at(-1)).toEqual({ type: 'done', stopReason: 'error' });
  });

  it('reports a template whose capability did not succeed as SCRIPT_TEMPLATE_UNFILLED, naming the call and what it returned', async () => {
    const p = new ScriptedProvider({ scripts: seedScript });
    const messages: ModelMessage[] = [
      { role: 'user', content: '收进来' },
      {
        role: 'assistant',
        content: [{ type: 'tool_call', id: 'c', name: 'inventory.query', input: { query: '沙丘2' } }],
      },
      { role: 'tool', toolCallId: 'c', name: 'inventory.query', status: 'error', content: 'denied' },
    ];
    const events = await drain(p.stream({ model: 'm', messages, tools }));
    const error = ofType(events, 'error')[0]?.error;
    expect(error).toBeInstanceOf(ScriptTemplateError);
    expect(error?.code).toBe('SCRIPT_TEMPLATE_UNFILLED');
    expect(error?.message).toContain("the last inventory.query call, for '沙丘2', did not succeed");
    expect(error?.message).toContain('denied');
  });

  it('a lookup that matched nothing: the error names the capability, the path, the title looked for and what the result held', () => {
    const calls = {
      'catalog.lookup': { input: { query: 'Xyz', limit: 1 }, status: 'succeeded', output: { items: [], total: 0 } },
    };
    const results = { 'catalog.lookup': { items: [], total: 0 } };
    const error = (() => {
      try {
        resolveTemplates({ mediaId: '{{catalog.lookup.items.0.mediaId}}' }, results, calls);
      } catch (e) {
        return e as ScriptTemplateError;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(ScriptTemplateError);
    expect(error?.message).toBe(
      `no catalog.lookup result matched 'Xyz': "items" is an empty list, so {{catalog.lookup.items.0.mediaId}} cannot be filled`,
    );
    expect(error?.details).toMatchObject({
      reference: 'catalog.lookup.items.0.mediaId',
      capability: 'catalog.lookup',
      path: 'items.0.mediaId',
      missing: 'items.0',
      input: { query: 'Xyz', limit: 1 },
      held: '[]',
    });
    // A field that is not there names the fields that are.
    expect(() => resolveTemplates('{{catalog.lookup.first}}', results, calls)).toThrow(
      `the catalog.lookup result for 'Xyz' does not hold "first": "the result" has no "first" (it has "items", "total")`,
    );
    // A reference to a capability never called says so.
    expect(() => resolveTemplates('{{release.search.releases.0.releaseId}}', results, calls)).toThrow(
      /no capability this reference names was called earlier/,
    );
    // Filled templates are unchanged by the error path.
    expect(resolveTemplates('{{catalog.lookup.total}} found', results, calls)).toBe('0 found');
  });

  it('assertComplete() throws SCRIPT_INCOMPLETE until every step and the final text were played', async () => {
    const p = new ScriptedProvider({ scripts: seedScript });
    await complete(p, { model: 'm', messages: [{ role: 'user', content: '收进来' }], tools });
    expect(() => p.assertComplete()).toThrow(expect.objectContaining({ code: 'SCRIPT_INCOMPLETE' }));
    await drive(p, '收进来', worldResults);
    expect(() => p.assertComplete()).not.toThrow();
  });

  it('ends with done(aborted) when the signal aborts mid-stream', async () => {
    const p = new ScriptedProvider({
      scripts: { finalText: 'a long answer that streams in many small pieces' },
      chunkSize: 2,
    });
    const ac = new AbortController();
    const events = [];
    for await (const e of p.stream({ model: 'm', messages: [{ role: 'user', content: 'x' }] }, ac.signal)) {
      events.push(e);
      if (e.type === 'text_delta') ac.abort();
    }
    expect(events.at(-1)).toEqual({ type: 'done', stopReason: 'aborted' });
    expect(ofType(events, 'text_delta')).toHaveLength(1);
  });

  it("is available as provider: 'scripted' (and seed 004's 'fake')", async () => {
    const p = createModelProvider({ provider: 'fake', scripts: { finalText: 'hi' } });
    expect(p.id).toBe('scripted');
    expect(
      (await complete(p, { model: 'fake-model', messages: [{ role: 'user', content: 'x' }] })).message.content,
    ).toEqual([{ type: 'text', text: 'hi' }]);
  });
});
