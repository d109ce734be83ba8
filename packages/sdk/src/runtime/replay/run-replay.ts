// `host.replayRun`: read the stored run, re-drive it in an isolated host against the host's current capability
// definitions, grants and run settings, compare — and measure that the host's models, handlers and ledger were
// not touched.
import type { CapabilityRegistry } from '../../capabilities/capability-registry';
import type { LedgerState } from '../../core/records';
import type { IdentityResolver } from '../../ports/identity';
import type { StorageAdapter } from '../../ports/storage-adapter';
import { compareReplay } from './replay-compare';
import type { RunReplayReport } from './replay-report';
import { driveRecordedRun, type ReplayHostFactory, type ReplayRunSettings } from './replay-drive';
import { readRecordedRun } from './recorded-run';

/** What {@link replayStoredRun} measures and replays with. @internal */
export interface RunReplayDeps {
  /** The host's store (read only). */
  storage: StorageAdapter;
  /** The host's registry: its current definitions. */
  capabilities: Pick<CapabilityRegistry, 'has' | 'get' | 'definition'>;
  /** The host's roles. */
  identity: IdentityResolver;
  /** The host's run settings. */
  settings: ReplayRunSettings;
  /** Builds the isolated host (`createAgentHost`). */
  createHost: ReplayHostFactory;
  /** Calls the host's model providers received so far. */
  modelCalls: () => number;
  /** Handlers and verifiers the host's registry started so far. */
  handlerCalls: () => number;
}

const LEDGER_STATES: readonly LedgerState[] = ['running', 'succeeded', 'failed', 'pending', 'unknown'];
/** Ledger rows read for the before/after measure. */
const LEDGER_SCAN_LIMIT = 100_000;

/**
 * Replays a stored run of the host (see `AgentHost.replayRun`; access was checked by the caller).
 * @internal
 */
export async function replayStoredRun(
  deps: RunReplayDeps,
  runId: string,
  options: { timeoutMs?: number } = {},
): Promise<RunReplayReport> {
  const recorded = await readRecordedRun(deps.storage, runId, { capabilities: deps.capabilities });
  const models = deps.modelCalls();
  const handlers = deps.handlerCalls();
  const ledger = await ledgerRows(deps.storage);
  const replay = await driveRecordedRun(
    recorded,
    {
      capabilities: deps.capabilities,
      settings: deps.settings,
      authorization: deps.storage,
      identity: deps.identity,
      ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
    },
    deps.createHost,
  );
  const divergences = compareReplay(recorded, { replayed: replay.replayed, missing: replay.missing });
  const after = await ledgerRows(deps.storage);
  let ledgerWrites = 0;
  for (const [key, row] of after) if (ledger.get(key) !== row) ledgerWrites++;
  for (const key of ledger.keys()) if (!after.has(key)) ledgerWrites++;
  return {
    runId,
    status: divergences.length === 0 ? 'same' : 'diverged',
    modelCalls: deps.modelCalls() - models,
    handlerCalls: deps.handlerCalls() - handlers,
    ledgerWrites,
    turns: recorded.turns.length,
    toolCalls: [...recorded.turns, ...recorded.subagents.flatMap((s) => s.turns)].reduce(
      (n, t) => n + t.calls.length,
      0,
    ),
    divergences,
    storedReport: recorded.report,
    replayedReport: replay.report,
    replayedModelTurns: replay.modelTurns,
    stopped: replay.stopped,
  };
}

/** Every ledger row of the store (at most {@link LEDGER_SCAN_LIMIT}), by key: state, attempts, token and time of change. */
async function ledgerRows(storage: StorageAdapter): Promise<Map<string, string>> {
  const rows = await storage.ledger.listByState(LEDGER_STATES, { limit: LEDGER_SCAN_LIMIT });
  return new Map(rows.map((r) => [r.key, `${r.state}|${r.attempts}|${r.token}|${r.updatedAt}`]));
}
