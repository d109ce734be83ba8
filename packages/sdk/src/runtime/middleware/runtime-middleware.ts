// The middleware a run driver runs: the runtime's own (from its settings), then the host's.
import { MediaAgentError } from '../../core/errors';
import { costOf, priceFor } from '../../models/cost';
import { summaryRequestMessages, type PinnedFacts } from '../context/compaction';
import { tokenCorrectionOf } from '../context/token-correction';
import { openApprovals } from '../loop/approvals';
import type { RunDriverDeps } from '../loop/driver-types';
import { compactionMiddleware } from './compaction';
import { historyCaptureMiddleware } from './history-capture';
import { loopGuardMiddleware } from './loop-guard';
import type { MiddlewareEntry } from './pipeline';
import { repeatedResultsMiddleware } from './repeated-results';
import { resultSpillMiddleware } from './result-spill';
import { codeExecutionMiddleware } from './code-execution';
import { toolImagesMiddleware } from './tool-images';
import { learningReviewMiddleware } from './learning-review';
import { RUNTIME_MIDDLEWARE_NAMES, type RunMiddleware, type RunMiddlewareHook } from './run-middleware';
import { TOOL_DISCOVERY_STATE_KEY, toolDiscoveryMiddleware } from './tool-discovery';
import { estimateRequestTokens } from '../context/compaction';
import { reserveSummary } from '../budgets/summary-reservation';
import { spentOf } from '../budgets/worst-case';

const HOOKS: readonly RunMiddlewareHook[] = [
  'onDriveStart',
  'beforeModelRequest',
  'afterModelTurn',
  'beforeToolCall',
  'afterToolCall',
  'onRunEnd',
];

/**
 * Checks host middleware: objects with a unique non-empty name that is not one of the runtime's
 * own, and hooks that are functions.
 * @throws `OPTIONS_INVALID` (with `details.option` and `details.middleware`)
 * @internal
 */
export function validateRunMiddleware(middleware: unknown): asserts middleware is readonly RunMiddleware[] {
  const invalid = (message: string, name?: unknown) =>
    new MediaAgentError('OPTIONS_INVALID', `option runs.middleware: ${message}`, {
      option: 'runs.middleware',
      ...(name !== undefined ? { middleware: name } : {}),
    });
  if (!Array.isArray(middleware)) throw invalid('must be an array of middleware');
  const seen = new Set<string>(RUNTIME_MIDDLEWARE_NAMES);
  for (const m of middleware as unknown[]) {
    const name = (m as { name?: unknown } | null)?.name;
    if (typeof m !== 'object' || m === null || typeof name !== 'string' || !name.trim())
      throw invalid('every middleware needs a non-empty string name');
    if (seen.has(name))
      throw invalid(
        `the name ${JSON.stringify(name)} is ${RUNTIME_MIDDLEWARE_NAMES.includes(name) ? "one of the runtime's own" : 'used twice'}`,
        name,
      );
    seen.add(name);
    for (const hook of HOOKS) {
      const fn = (m as Record<string, unknown>)[hook];
      if (fn !== undefined && typeof fn !== 'function') throw invalid(`${name}.${hook} must be a function`, name);
    }
  }
}

/**
 * The middleware of a driver, in order: compaction (when the threshold is above 0), tool discovery
 * (when `maxTools` is above 0), repeated results, result spill, code execution, background learning
 * reviews (when on), the loop guard, then `deps.middleware`.
 * @throws `OPTIONS_INVALID` for invalid host middleware
 */
export function driverMiddleware(deps: RunDriverDeps): MiddlewareEntry[] {
  const { settings, storage, provider, counter } = deps;
  const own = (
    middleware: RunMiddleware,
    stateKey = middleware.name,
    by = `the ${middleware.name.replace(/_/g, ' ')}`,
  ): MiddlewareEntry => ({ middleware, stateKey, by, source: 'runtime' });
  const entries: MiddlewareEntry[] = [];
  // First, so it archives inputs before compaction and tool results before any middleware shortens them.
  if (deps.history)
    entries.push(own(historyCaptureMiddleware(deps.history, settings.model, { now: () => deps.clock.now() })));
  if (settings.compactionThreshold > 0) {
    entries.push(
      own(
        compactionMiddleware({
          counter,
          model: settings.model,
          contextWindowTokens: settings.contextWindowTokens,
          thresholdShare: settings.compactionThreshold,
          tokenCorrection: () => tokenCorrectionOf(provider),
          pinned: async (runId): Promise<PinnedFacts> => {
            const run = await storage.runs.get(runId);
            const unknown = (await storage.ledger.listByState(['unknown'])).filter((e) => e.runId === runId);
            return {
              goal: run?.goal ?? '',
              ...(run?.checklist ? { checklist: run.checklist } : {}),
              unknownWrites: unknown.map((e) => ({
                capability: e.capabilityId,
                callId: e.callId,
                input: e.inputSummary,
                note: 'outcome unknown: verify before retrying',
              })),
              pendingApprovals: (await openApprovals(deps, runId)).map((a) => ({
                approvalId: a.id,
                planType: a.planType,
                planId: a.planId,
              })),
            };
          },
          // Summaries are written by the model; compaction falls back to a deterministic digest when this throws.
          summarize: async (older, signal, charge, run) => {
            let text = '';
            const price = priceFor(settings.model);
            const usage = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };
            const messages = summaryRequestMessages(older);
            // Reserved against the run owner's spending budgets like every model call; at a cap it is not made
            // (compaction then falls back to its deterministic digest).
            const reservation = deps.spending
              ? await reserveSummary(deps, run, estimateRequestTokens(counter, messages, [], settings.model))
              : undefined;
            let failed = true;
            try {
              for await (const event of provider.stream({ model: settings.model, messages }, signal)) {
                if (event.type === 'text_delta') text += event.text;
                else if (event.type === 'usage') {
                  usage.inputTokens += event.usage.inputTokens;
                  usage.outputTokens += event.usage.outputTokens;
                  usage.cacheReadTokens += event.usage.cacheReadTokens;
                  usage.cacheWriteTokens += event.usage.cacheWriteTokens;
                } else if (event.type === 'error') throw event.error;
              }
              failed = false;
            } finally {
              // The summary call is the run's: its usage counts against the run's budgets.
              const costUsd = price ? costOf(usage, price) : 0;
              charge({ modelCalls: 1, ...usage, costUsd });
              if (reservation) {
                const spent = spentOf({ ...usage, costUsd });
                if (failed && spent.tokens === 0) await reservation.release();
                else await reservation.settle(spent);
              }
            }
            return text;
          },
        }),
      ),
    );
  }
  if (settings.maxTools > 0)
    entries.push(
      own(
        toolDiscoveryMiddleware({
          maxTools: settings.maxTools,
          counter,
          model: settings.model,
          contextWindowTokens: settings.contextWindowTokens,
        }),
        TOOL_DISCOVERY_STATE_KEY,
      ),
    );
  if (deps.images) entries.push(own(toolImagesMiddleware(deps.images)));
  entries.push(own(repeatedResultsMiddleware()));
  entries.push(own(resultSpillMiddleware(deps.results)));
  if (deps.code) entries.push(own(codeExecutionMiddleware(deps.code)));
  if (deps.learning)
    entries.push(
      own(
        learningReviewMiddleware({
          ...deps.learning,
          provider,
          counter,
          storage,
          capabilities: deps.capabilities,
          clock: deps.clock,
          ids: deps.ids,
          logger: deps.logger,
          skills: deps.skills,
          memory: deps.memory,
        }),
      ),
    );
  entries.push({
    middleware: loopGuardMiddleware(settings.loopGuard),
    stateKey: 'guard',
    by: 'the loop guard',
    source: 'loop_guard',
  });
  const host = deps.middleware ?? [];
  validateRunMiddleware(host);
  for (const middleware of host)
    entries.push({
      middleware,
      stateKey: `middleware:${middleware.name}`,
      by: `middleware ${JSON.stringify(middleware.name)}`,
      source: 'runtime',
    });
  return entries;
}
