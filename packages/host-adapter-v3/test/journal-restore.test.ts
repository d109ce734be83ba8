import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ConsoleLogger } from '@media-agent/sdk';
import { SqliteStorage } from '@media-agent/sdk/sqlite';
import { addToLibraryScript, ScriptedProvider, waitForRunStatus } from '@media-agent/sdk/testing';
import { createV3AgentHost, V3RunJournal } from '@media-agent/host-adapter-v3';
import { MoviePilotV3Simulator } from '@media-agent/host-adapter-v3/testing';
import { restoreRunJournal } from '../src/journal-restore';
import type { RunEventRecord } from '@media-agent/sdk/storage';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c().catch(() => undefined);
});

const toolCall = (seq: number, capabilityId: string, phase: string, output: unknown, idempotencyKey?: string) =>
  ({
    globalSeq: seq,
    runId: 'run-1',
    seq,
    type: 'tool_call',
    at: 1_000 + seq,
    data: { callId: `c${seq}`, capabilityId, phase, output, ...(idempotencyKey ? { idempotencyKey } : {}) },
  }) as RunEventRecord;

describe('restoreRunJournal', () => {
  it('puts back the entities, plans, downloads and organizes of the receipts that succeeded or are pending, and skips the rest', () => {
    const journal = new V3RunJournal();
    const events = [
      toolCall(1, 'catalog.lookup', 'succeeded', { items: [{ mediaEntityId: 'tmdb:1', title: 'One' }] }),
      toolCall(2, 'download.plan', 'succeeded', {
        plan: { id: 'plan-d', mediaEntityId: 'tmdb:1' },
        download: { title: 'One' },
      }),
      toolCall(3, 'download.submit', 'unknown', undefined),
      toolCall(
        4,
        'download.submit',
        'pending',
        {
          download: {
            id: 'hash-1',
            planId: 'plan-d',
            releaseId: 'r1',
            releaseName: 'One.2024.1080p',
            mediaEntityId: 'tmdb:1',
            title: 'One',
            sizeBytes: 42,
            submittedAt: 7,
          },
        },
        'key-submit',
      ),
      toolCall(5, 'organize.execute', 'succeeded', {
        organize: { planId: 'plan-o', downloadId: 'hash-1', mediaEntityId: 'tmdb:1' },
      }),
      toolCall(6, 'catalog.lookup', 'failed', { items: [{ mediaEntityId: 'tmdb:2', title: 'Two' }] }),
    ];
    restoreRunJournal(journal, 'run-1', events);
    restoreRunJournal(journal, 'run-1', events); // twice: nothing doubles
    expect(journal.forRun('run-1')).toEqual({
      touched: [{ mediaEntityId: 'tmdb:1', title: 'One' }],
      plans: [
        { id: 'plan-d', type: 'download', mediaEntityId: 'tmdb:1' },
        { id: 'plan-o', type: 'organize', mediaEntityId: 'tmdb:1' },
      ],
      downloads: [
        {
          hash: 'hash-1',
          planId: 'plan-d',
          releaseId: 'r1',
          releaseName: 'One.2024.1080p',
          mediaEntityId: 'tmdb:1',
          title: 'One',
          sizeBytes: 42,
          idempotencyKey: 'key-submit',
          submittedAt: 7,
        },
      ],
      organizes: [{ planId: 'plan-o', downloadId: 'hash-1', mediaEntityId: 'tmdb:1', idempotencyKey: null }],
    });
    expect(journal.forRun('run-2').downloads).toEqual([]);
  });
});

describe('a run resumed by another process reports the same goal facts', () => {
  it('host A submits and stops while the run waits for the import; host B (own journal, same database) polls the goal: verified succeeded, one download', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'v3-journal-'));
    cleanups.push(async () => rmSync(dir, { recursive: true, force: true }));
    const sim = new MoviePilotV3Simulator({
      autoTransfer: true,
      durations: { queuedMs: 50, downloadMs: 300, transferMs: 50 },
    });
    await sim.start();
    cleanups.push(() => sim.close());
    const host = () => {
      const v3 = createV3AgentHost({
        url: sim.url,
        auth: { apiKey: sim.apiKey },
        storage: new SqliteStorage({ path: join(dir, 'agent.sqlite') }),
        logger: new ConsoleLogger('silent'),
        model: { provider: new ScriptedProvider({ scripts: addToLibraryScript('Dune: Part Two') }) },
        // The goal poll is due 3 s after the run began waiting: A is closed before (a 1 s window was missed on a
        // loaded machine: A polled the goal itself and the run had ended before the test saw it waiting).
        runs: { pollMs: 10, goalPollSec: 3 },
      });
      cleanups.push(() => v3.close());
      return v3;
    };
    const a = host();
    await a.host.start();
    await a.host.grants.create({ action: 'download.plan', actor: 'user:admin' });
    await a.host.grants.create({ action: 'download.submit', actor: 'user:admin' });
    const run = await a.host.startRun({ goal: 'Add Dune: Part Two to the library', actor: 'user:admin' });
    await waitForRunStatus(a.host, run.id, ['waiting']);
    expect(a.journal.forRun(run.id).downloads).toHaveLength(1);
    await a.close(); // before its goal poll is due (3 s after the run began waiting): B polls it

    const b = host();
    expect(b.journal.forRun(run.id).downloads).toEqual([]);
    await b.host.start();
    const done = await waitForRunStatus(b.host, run.id, ['succeeded', 'failed', 'cancelled', 'budget_exceeded']);
    expect(done.status).toBe('succeeded');
    const { report } = await b.host.getRun(run.id);
    expect(report).toMatchObject({ status: 'succeeded', verified: true });
    expect(report!.facts.downloads).toEqual([
      expect.objectContaining({ mediaEntityId: 'tmdb:693134', status: 'imported' }),
    ]);
    expect(sim.downloads()).toHaveLength(1);
    sim.assertNoViolations();
  });
});
