// Regression guard, found in review of the commit changes — A side-effecting call made through a registry that forwards a copy of the invocation context: the
// claim rider (a WeakMap keyed by the context object) never reaches the pipeline, so the handler runs
// before the turn that opened the call (assistant message, `started` event) is committed.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import {
  ConsoleLogger,
  createAgentHost,
  defineCapability,
  resolvePort,
  Tokens,
  type AgentHost,
  type Capability,
  type CapabilityRegistry,
  type InvocationContext,
} from '../../src/index';
import { ForwardingCapabilityRegistry } from '../../src/capabilities';
import { DefaultCapabilityRegistry } from '../../src/capabilities/capability-registry';
import { SqliteStorage } from '../../src/sqlite';
import { waitForStatus } from '../runtime/harness';
import { noteModel, noteWrite } from './note-write';

const hosts: AgentHost[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const h of hosts.splice(0)) await h.stop().catch(() => undefined);
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A host registry that adds a field to each call's context (a copy), as a subclass may do. */
class TaggingRegistry extends ForwardingCapabilityRegistry {
  override async invoke(id: string | Capability<any, any>, input: unknown, context: InvocationContext) {
    return super.invoke(id, input, { ...context });
  }
}

async function runWith(wrap: boolean) {
  const dir = mkdtempSync(join(tmpdir(), 'trial34-fwd-'));
  dirs.push(dir);
  const storage = new SqliteStorage({ path: join(dir, 'agent.sqlite') });
  const seen: { started: boolean; assistant: boolean } = { started: false, assistant: false };
  const note = defineCapability({
    ...noteWrite,
    handler: async (_input, ctx) => {
      // What a crash right now would leave: is the turn that asked for this call stored?
      const events = await storage.events.listByRun(ctx.runId!);
      seen.started = events.some(
        (e) => e.type === 'tool_call' && (e.data as { phase?: string; callId?: string }).phase === 'started',
      );
      const messages = await storage.messages.list(ctx.runId!);
      seen.assistant = messages.some((m) => (m.message as { role?: string }).role === 'assistant');
      return { saved: true };
    },
  });
  const host = createAgentHost({
    storage,
    logger: new ConsoleLogger('silent'),
    model: { provider: noteModel('x', 'Noted.') },
    runs: { pollMs: 5, concurrency: 1 },
    ...(wrap
      ? {
          configure: (c) => {
            let registry: CapabilityRegistry | undefined;
            c.register(Tokens.CapabilityRegistry, {
              useFactory: (d) =>
                (registry ??= new TaggingRegistry(
                  new DefaultCapabilityRegistry({
                    storage: resolvePort(d, Tokens.StorageAdapter),
                    authorizer: resolvePort(d, Tokens.Authorizer),
                    ledger: resolvePort(d, Tokens.InvocationLedger),
                    clock: resolvePort(d, Tokens.Clock),
                    ids: resolvePort(d, Tokens.IdGenerator),
                    logger: resolvePort(d, Tokens.Logger),
                    maxInputBytes: 1_000_000,
                    identity: resolvePort(d, Tokens.Identity),
                  }),
                )),
            });
          },
        }
      : {}),
  });
  hosts.push(host);
  host.capabilities.register(note);
  await host.start();
  await host.grants.create({ action: 'note.write', actor: 'user:admin' });
  const run = await host.startRun({ goal: 'write a note', mode: 'plan_only', actor: 'user:admin' });
  expect((await waitForStatus(host, run.id, ['succeeded', 'failed'])).status).toBe('succeeded');
  return seen;
}

it('control: with the SDK registry the turn is stored before the handler runs', async () => {
  expect(await runWith(false)).toEqual({ started: true, assistant: true });
});

it('through a forwarding registry that copies the context, the turn is still stored before the handler runs', async () => {
  expect(await runWith(true)).toEqual({ started: true, assistant: true });
});
