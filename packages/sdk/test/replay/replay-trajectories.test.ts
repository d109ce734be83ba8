// Every shipped trajectory, played by the eval harness, then replayed from storage with host.replayRun: the replay
// goes the same way and touches nothing real — model calls, sandbox handler calls, world state and ledger rows
// are counted before and after.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseTrajectory, replayTrajectory, STANDARD_SCENARIOS, type ScriptedProvider } from '../../src/testing';
import { TRAJECTORIES } from './recorded-host';

const files = readdirSync(TRAJECTORIES)
  .filter((f) => f.endsWith('.json'))
  .sort();

describe('host.replayRun replays every shipped trajectory without side effects', () => {
  it('there are trajectories to replay', () => expect(files.length).toBeGreaterThanOrEqual(19));

  it.each(files)('%s', async (file) => {
    const trajectory = parseTrajectory(readFileSync(join(TRAJECTORIES, file), 'utf8'), file);
    const calls = [trajectory, ...(trajectory.subagents ?? [])].reduce(
      (n, p) => n + p.turns.reduce((m, t) => m + t.calls.length, 0),
      0,
    );
    let provider: ScriptedProvider | undefined;
    let checked = false;
    const result = await replayTrajectory(readFileSync(join(TRAJECTORIES, file), 'utf8'), STANDARD_SCENARIOS, {
      source: file,
      onProvider: (p) => {
        provider = p;
      },
      inspect: async (facts, host) => {
        const modelCalls = provider!.requests.length;
        const handlerCalls = facts.world.handlerCalls().length;
        const world = JSON.stringify(facts.world.toJSON());
        // The ledger rows of the run's side effects, and the audit trail, as they were.
        const keys = [
          ...new Set(
            [...facts.events, ...facts.subagents.flatMap((s) => s.events)].flatMap((e) =>
              e.type === 'tool_call' && e.data.idempotencyKey ? [e.data.idempotencyKey] : [],
            ),
          ),
        ];
        const ledgerRows = async () => Promise.all(keys.map((k) => host.ledger.get(k)));
        const ledger = await ledgerRows();
        const audit = await host.audit({ after: 0, limit: 1000 });
        const report = await host.replayRun(facts.run.id, { actor: 'user:admin' });
        expect(report.divergences).toEqual([]);
        expect(report).toMatchObject({
          runId: facts.run.id,
          status: 'same',
          modelCalls: 0,
          handlerCalls: 0,
          ledgerWrites: 0,
        });
        // A run the harness aborted because nobody answered its question is stopped the same way in the replay.
        expect(report.stopped).toBe(facts.run.status === 'cancelled' ? 'waiting' : null);
        expect(report.replayedReport).toEqual(report.storedReport);
        // The stored run is the trajectory: its turns and calls, counted.
        expect({ turns: report.turns, toolCalls: report.toolCalls }).toEqual({
          turns: trajectory.turns.length,
          toolCalls: calls,
        });
        // Counted outside the runtime: the scripted model got no request, no sandbox handler ran, the world and
        // the ledger are as they were.
        expect(provider!.requests.length).toBe(modelCalls);
        expect(facts.world.handlerCalls().length).toBe(handlerCalls);
        expect(JSON.stringify(facts.world.toJSON())).toBe(world);
        expect(await ledgerRows()).toEqual(ledger);
        expect(await host.audit({ after: 0, limit: 1000 })).toEqual(audit);
        // The run did make calls: the counts are not zero because nothing was ever counted.
        expect(modelCalls).toBeGreaterThan(0);
        checked = true;
      },
    });
    expect(checked).toBe(true);
    expect(result.verdict).not.toBe('oracle_error');
  });
});
