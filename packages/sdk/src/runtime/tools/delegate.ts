// `delegate`: a read-only subagent run, driven inline.
import type { CapabilityRegistry } from '../../capabilities/capability-registry';
import type { Clock } from '../../ports/clock';
import type { JsonValue } from '../../core/records';
import type { RunRecord } from '../../core/run-records';
import type { StorageAdapter } from '../../ports/storage-adapter';
import { DELEGATE_MODEL_TOOL, DELEGATE_TOOL, MAX_SUBAGENT_DEPTH, parseDelegateInput } from '../delegate-tool';
import type { RunDriverDeps, RunLease } from '../loop/driver-types';
import { childBudgets, SUBAGENTS_STATE_KEY, subagentResult } from '../loop/subagents';
import type { RuntimeTool } from './runtime-tool';
import { mergeShown, shownToChild } from '../loop/run-provenance-state';
import type { Context } from '@opentelemetry/api';

/** What `delegate` needs. */
export interface DelegateToolDeps {
  /** Registry (the child's read-only capabilities). */
  capabilities: CapabilityRegistry;
  /** Storage (the child's record and messages, its lease). */
  storage: StorageAdapter;
  /** Time. */
  clock: Clock;
  /** Creates the child run (queued, leased to the parent's worker). */
  startSubagent: RunDriverDeps['startSubagent'];
  /** Drives a run to its end under a lease (the driver itself). */
  drive: (run: RunRecord, lease: RunLease, parent: Context) => Promise<void>;
}

/**
 * `delegate`: a read-only subagent run with what is left of the parent's
 * budgets, driven inline under the parent's lease and signal; its report is the tool result. The
 * child is recorded in the parent's runtime state (and committed) before it runs, so a parent
 * resumed after a crash finds it.
 */
export function delegateTool(deps: DelegateToolDeps): RuntimeTool {
  return {
    name: DELEGATE_TOOL,
    modelTool: DELEGATE_MODEL_TOOL,
    discoveryOnly: false,
    available: (run) => run.depth < MAX_SUBAGENT_DEPTH,
    async run({ session, call, checkpoint, trace }) {
      const run = session.run;
      if (run.depth >= MAX_SUBAGENT_DEPTH)
        return {
          result: {
            status: 'failed',
            error: { code: 'DELEGATE_DEPTH', message: `subagents may nest at most ${MAX_SUBAGENT_DEPTH} deep` },
          },
        };
      const input = parseDelegateInput(call.input);
      if (!input.ok)
        return { result: { status: 'failed', error: { code: 'DELEGATE_INVALID', message: input.message } } };
      const readOnly = deps.capabilities
        .list()
        .filter(
          (d) =>
            (d.kind === 'read' || d.kind === 'preview') &&
            (!run.capabilityAllowlist || run.capabilityAllowlist.includes(d.id)),
        )
        .map((d) => d.id)
        .filter((id) => !input.capabilities || input.capabilities.includes(id));
      // The child shares the parent's budgets: it gets what is left. Its lease expires with the parent's (read fresh).
      const fresh = { ...((await deps.storage.runs.get(run.id)) ?? run), usage: { ...session.usage } };
      const child = await deps.startSubagent(
        fresh,
        input.goal,
        readOnly,
        childBudgets(fresh, session.usage, deps.clock.now()),
        session.lease.owner,
      );
      // Remembered (and committed) before it runs, so a parent resumed after a crash finds its child.
      const subagents = {
        ...((session.getState(SUBAGENTS_STATE_KEY) ?? {}) as Record<string, JsonValue>),
        [call.id]: child.id,
      };
      session.setState(SUBAGENTS_STATE_KEY, subagents);
      await checkpoint();
      const release = session.lease.adopt(child.id);
      try {
        // The child is the parent's step in flight: a host that drains lets it run on until its end (or until the
        // drain time runs out and the shared signal aborts), so the parent never commits the result of a half-run child.
        const { drain: _drain, ...childLease } = session.lease;
        await deps.drive(child, childLease, trace);
      } finally {
        release();
        await deps.storage.runs.releaseLease(child.id, session.lease.owner);
      }
      const ended = (await deps.storage.runs.get(child.id))!;
      // The child's report and findings carry what it was shown: the parent counts it as shown to itself.
      mergeShown(session, shownToChild(ended));
      return { result: await subagentResult(deps.storage, ended), childUsage: ended.usage };
    },
  };
}
