// Many calls in flight at once without a caller signal (HTTP, MCP or host code that passes none): no listener piles up
// on a shared signal, so Node prints no MaxListenersExceededWarning into a household's logs.
import Type from 'typebox';
import { afterEach, describe, expect, it } from 'vitest';
import { createAgentHost, defineCapability, type AgentHost } from '../../src/index';
import { MemoryStorage } from '../../src/storage';

const hosts: AgentHost[] = [];
afterEach(async () => {
  await Promise.all(hosts.splice(0).map((h) => h.stop({ drainMs: 0 })));
});

describe('calls without a caller signal', () => {
  it('30 reads in flight at once: all answer, and no MaxListenersExceededWarning is emitted', async () => {
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    let entered = 0;
    const host = createAgentHost({ storage: new MemoryStorage() });
    hosts.push(host);
    host.capabilities.register(
      defineCapability({
        id: 'nas.list',
        version: 1,
        title: 'List the NAS',
        description: 'Lists a folder.',
        kind: 'read',
        replay: 'safe',
        input: Type.Object({ path: Type.String() }),
        output: Type.Object({ path: Type.String() }),
        handler: async (input) => {
          entered++;
          await gate;
          return { path: input.path };
        },
      }),
    );
    await host.start();
    const warnings: Error[] = [];
    const onWarning = (w: Error) => void warnings.push(w);
    process.on('warning', onWarning);
    try {
      const calls = Array.from({ length: 30 }, (_, i) =>
        host.invoke('nas.list', { path: `/media/${i}` }, { actor: 'user:admin' }),
      );
      while (entered < 30) await new Promise((resolve) => setTimeout(resolve, 5));
      open();
      const results = await Promise.all(calls);
      expect(results.map((r) => (r as { output?: { path: string } }).output?.path)).toEqual(
        Array.from({ length: 30 }, (_, i) => `/media/${i}`),
      );
      // A warning is emitted on the next tick after the listener that passes the limit.
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.off('warning', onWarning);
    }
    expect(warnings.filter((w) => w.name === 'MaxListenersExceededWarning').map((w) => w.message)).toEqual([]);
  });
});
