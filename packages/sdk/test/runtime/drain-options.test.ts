// The drain's option rule (host.stop({ drainMs })) and stopOnSignals' wiring, on a real host (SQLite file).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ConsoleLogger, createAgentHost, type DrainSummary } from '../../src/index';
import { DEFAULT_DRAIN_MS, stopOnSignals } from '../../src/operations';
import { resolveDrainMs } from '../../src/runtime/drain-options';
import { SqliteStorage } from '../../src/sqlite';
import { ScriptedProvider } from '../../src/testing';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('resolveDrainMs', () => {
  it('defaults to DEFAULT_DRAIN_MS (10 000 ms) and keeps any finite drainMs >= 0', () => {
    expect(DEFAULT_DRAIN_MS).toBe(10_000);
    expect(resolveDrainMs(undefined)).toBe(DEFAULT_DRAIN_MS);
    expect(resolveDrainMs({})).toBe(DEFAULT_DRAIN_MS);
    expect(resolveDrainMs({ drainMs: 0 })).toBe(0);
    expect(resolveDrainMs({ drainMs: 8_000 })).toBe(8_000);
  });

  it.each([-1, -0.5, Number.NaN, Number.POSITIVE_INFINITY, '8000', null])(
    'refuses drainMs %s with OPTIONS_INVALID',
    (drainMs) => {
      expect(() => resolveDrainMs({ drainMs })).toThrow(
        expect.objectContaining({ code: 'OPTIONS_INVALID', details: { option: 'stop.drainMs' } }),
      );
    },
  );

  it.each([
    ['5', 'got "5"'],
    [Number.NaN, 'got NaN'],
    [-1, 'got -1'],
  ] as const)('the drainMs message shows the value as given: %s → %s (a string quoted)', (drainMs, shown) => {
    expect(() => resolveDrainMs({ drainMs })).toThrow(shown);
  });

  it('refuses options that are not an object, and an onDrained that is not a function', () => {
    expect(() => resolveDrainMs(8000)).toThrow(
      expect.objectContaining({ code: 'OPTIONS_INVALID', details: { option: 'stop' } }),
    );
    expect(() => resolveDrainMs({ onDrained: 'log' })).toThrow(
      expect.objectContaining({ code: 'OPTIONS_INVALID', details: { option: 'stop.onDrained' } }),
    );
  });
});

describe('stopOnSignals', () => {
  it('refuses a bad drainMs or signals with OPTIONS_INVALID naming the option, and subscribes nothing', () => {
    const host = { stop: async () => undefined };
    const before = process.listenerCount('SIGTERM');
    expect(() => stopOnSignals(host, { drainMs: -5 })).toThrow(
      expect.objectContaining({ code: 'OPTIONS_INVALID', details: { option: 'stopOnSignals.drainMs' } }),
    );
    expect(() => stopOnSignals(host, { signals: [] })).toThrow(
      expect.objectContaining({ code: 'OPTIONS_INVALID', details: { option: 'stopOnSignals.signals' } }),
    );
    expect(() => stopOnSignals(host, { signals: ['TERM' as NodeJS.Signals] })).toThrow(
      expect.objectContaining({ code: 'OPTIONS_INVALID', details: { option: 'stopOnSignals.signals' } }),
    );
    expect(process.listenerCount('SIGTERM')).toBe(before);
  });

  it('a signal drains the host and reports the summary; the returned function unsubscribes', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'media-agent-stop-signals-'));
    dirs.push(dir);
    const host = createAgentHost({
      storage: new SqliteStorage({ path: join(dir, 'agent.sqlite') }),
      logger: new ConsoleLogger('silent'),
      model: { provider: new ScriptedProvider({ scripts: [] }) },
      runs: { pollMs: 5 },
    });
    await host.start();
    const stopped: Array<DrainSummary | undefined> = [];
    const before = process.listenerCount('SIGUSR2');
    const off = stopOnSignals(host, {
      drainMs: 5_000,
      signals: ['SIGUSR2'],
      exit: false,
      onStopped: (s) => void stopped.push(s),
    });
    expect(process.listenerCount('SIGUSR2')).toBe(before + 1);
    process.emit('SIGUSR2');
    await vi.waitFor(() => expect(stopped).toHaveLength(1), { timeout: 30_000, interval: 5 });
    expect(stopped[0]).toMatchObject({ drained: 0, released: 0, aborted: 0 });
    await expect(host.listRuns()).rejects.toMatchObject({ code: 'HOST_STOPPED' });
    off();
    expect(process.listenerCount('SIGUSR2')).toBe(before);
  });
});
