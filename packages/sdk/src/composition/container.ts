import { createRequire } from 'node:module';
import { DEFAULT_IDENTITY_RESOLVER, type IdentityResolver } from '../ports/identity';
import { BudgetService } from '../runtime/budgets/budget-service';
import { resolveSpending, spendingProblem } from '../runtime/budgets/spending-settings';
import type { DependencyContainer } from 'tsyringe';
import { ApprovalService, DEFAULT_APPROVAL_TTL_MS } from '../authorization/approval-service';
import { AutomationService } from '../authorization/automation-service';
import { GrantService } from '../authorization/grant-service';
import { PlanService } from '../authorization/plan-service';
import { PolicyAuthorizer } from '../authorization/policy-authorizer';
import { PolicyService } from '../authorization/policy-service';
import { DefaultCapabilityRegistry } from '../capabilities/capability-registry';
import { DEFAULT_MAX_INPUT_BYTES } from '../capabilities/invocation-pipeline';
import { DEFAULT_COMMIT_WINDOW_MS } from '../runtime/loop/deferred-commit';

/** The longest delay a Node.js timer takes, in ms (2^31 - 1). */
const MAX_TIMER_MS = 2_147_483_647;
import { DEFAULT_CAPABILITY_TIMEOUT_MS } from '../capabilities/capability-deadline';
import { DEFAULT_IMPACT_TIMEOUT_MS } from '../capabilities/impact-runner';
import { approvalEditCheck } from '../runtime/approval-edit-check';
import { DEFAULT_CONTEXT_WINDOW_TOKENS } from '../runtime/context/tool-discovery';
import { MediaAgentError } from '../core/errors';
import { DefaultInvocationLedger } from '../ledger/default-invocation-ledger';
import { SystemClock, type Clock } from '../ports/clock';
import { RandomIdGenerator, type IdGenerator } from '../ports/id-generator';
import { ConsoleLogger } from '../ports/logger';
import { resolvePort, Tokens, type AgentContainer } from './injection-tokens';
import { MemoryStorage } from '../storage/memory/memory-storage';
import type { StorageAdapter } from '../ports/storage-adapter';
import { RunEventBus } from '../runtime/events/run-event-bus';
import { type ModelProviderConfig, modelProviderFrom } from '../models/factory';
import { checkProviderModels } from '../models/local/check-provider-models';
import { checkProviderConfig } from '../models/provider-config';
import { checkFallbacks } from '../models/routing/check-fallbacks';
import { ModelRoute } from '../models/routing/model-route';
import { checkOptionShapes } from '../runtime/agent-option-shapes';
import { TiktokenCounter } from '../models/token-counter';
import type { ModelProvider } from '../models/types';
import { ModelNotConfiguredError } from '../models/errors';
import { DefaultAgentHost, type AgentHost } from '../runtime/agent-host';
import type { GoalFacts } from '../runtime/goal-facts';
import { DEFAULT_DAILY_BUDGETS, DEFAULT_RUN_BUDGETS } from '../runtime/run-budgets';
import { RunDriver, type RunDriverSettings } from '../runtime/run-driver';
import { RunService } from '../runtime/run-service';
import { DecisionService } from '../runtime/decisions/decision-service';
import {
  DEFAULT_DECISION_OPTIONS,
  type DecisionOptions,
  type ResolvedDecisionOptions,
} from '../runtime/decisions/decision-settings';
import { ToolResultStore } from '../runtime/context/tool-result-store';
import { CodeExecution } from '../runtime/code/code-execution';
import { resolveCodeExecutionOptions } from '../runtime/code/code-options';
import { ImageDelivery } from '../runtime/images/image-delivery';
import { WorkerPool } from '../runtime/worker-pool';
import type { AgentOptions, ResolvedAgentOptions, RunScope } from '../runtime/agent-options';
import { validateRunMiddleware } from '../runtime/middleware/runtime-middleware';
import { FileSkillStore } from '../skills/file-skill-store';
import { resolveLearningOptions } from '../runtime/learning/learning-options';
import { LearningReviews } from '../runtime/learning/learning-reviews';
import { checkOptionNames } from './option-keys';
import { IDENTITY_TIMEOUT_MS, withIdentityDeadline } from '../authorization/identity-deadline';
import type { SkillStore } from '../ports/skill-store';
import { memoryServiceFor } from './memory-wiring';
import { hostRedactor } from './redaction-wiring';
import { isSecretHolder } from '../core/secret-redactor';
import { redactingHost } from './redacting-host';
import { trace } from '@opentelemetry/api';
import { redactingStorage } from '../storage/redacting-storage';
import { redactingLogger } from '../ports/redacting-logger';
import { redactingProvider } from '../models/redacting-provider';
import { redactingHistoryStore } from '../history/redacting-history-store';
import { redactingTracer } from '../runtime/tracing/redacting-tracer';
import { TRACER_NAME } from '../runtime/tracing/gen-ai-attributes';
import { resolveAccessRecheckMs, resolveHostLimits } from '../runtime/limits/host-limits';
import { DEFAULT_INTENT_DIRECT_HOLD_MS, DEFAULT_INTENT_HOLD_MS } from '../capabilities/intent-join';
import { resolveRetention } from '../runtime/maintenance/retention-options';
import { resolveMaintenanceOptions } from '../runtime/maintenance/maintenance-options';
import { resolveScheduleOptions } from '../runtime/schedules/schedule-options';
import { ScheduleService } from '../runtime/schedules/schedule-service';
import { resolveAuditCheckpointKey } from '../runtime/audit-trail';
import { MaintenanceService } from '../runtime/maintenance/maintenance-service';
import { MaintenanceScheduler } from '../runtime/maintenance/maintenance-scheduler';
import { ScheduleRunner } from '../runtime/schedules/schedule-runner';
import { resolveChannelsOptions, type ResolvedChannelsOptions } from '../runtime/channels/channels-options';
import { ChannelSecret } from '../runtime/channels/channel-secret';
import { OutboxDispatcher } from '../runtime/channels/outbox-dispatcher';
import { channelEndNotice, channelReplies } from '../runtime/channels/channel-replies';
import type { StepReplies } from '../runtime/loop/step-writes';
import { UndoService } from '../runtime/undo/undo-service';
import { ForkService } from '../runtime/fork/fork-service';
import { countingProvider, type ModelCallCounter } from '../runtime/replay/counting-provider';
import { replayStoredRun } from '../runtime/replay/run-replay';
import { hostCodeCalls } from '../capabilities/capability-registry';

let tsyringe: typeof import('tsyringe') | undefined;

/**
 * tsyringe, loaded by the first container: it needs the `reflect-metadata` polyfill installed
 * globally first, a side effect that importing the SDK alone must not have. Synchronous because
 * {@link createAgentContainer} is.
 */
const invalidOption = (option: string, message: string) =>
  new MediaAgentError('OPTIONS_INVALID', `option ${message}`, { option });

/** The options object and the ports it passes are what they claim to be (`OPTIONS_INVALID` before anything is built). */
function checkPorts(options: AgentOptions): void {
  if (typeof options !== 'object' || options === null || Array.isArray(options))
    throw invalidOption('options', 'options must be an object');
  const ports: Array<[string, unknown, readonly string[]]> = [
    ['storage', options.storage, ['transaction', 'migrate', 'close']],
    ['clock', options.clock, ['now']],
    ['ids', options.ids, ['next']],
    ['logger', options.logger, ['warn', 'error']],
    ['goalFacts', options.goalFacts, ['forRun']],
  ];
  for (const [name, value, methods] of ports) {
    if (value === undefined) continue;
    const missing = methods.filter((m) => typeof (value as Record<string, unknown> | null)?.[m] !== 'function');
    if (typeof value !== 'object' || value === null || missing.length > 0)
      throw invalidOption(
        name,
        `${name} must implement ${methods.join(', ')}; got ${value === null ? 'null' : typeof value}`,
      );
  }
  for (const name of ['runs', 'model'] as const) {
    const value = options[name];
    if (value !== undefined && (typeof value !== 'object' || value === null || Array.isArray(value)))
      throw invalidOption(name, `${name} must be an object`);
  }
}

function loadTsyringe(): typeof import('tsyringe') {
  if (tsyringe) return tsyringe;
  const require = createRequire(import.meta.url);
  require('reflect-metadata');
  return (tsyringe = require('tsyringe') as typeof import('tsyringe'));
}

function resolveOptions(options: AgentOptions): ResolvedAgentOptions {
  checkPorts(options);
  checkOptionNames(options);
  checkOptionShapes(options);
  const limits = {
    maxInputBytes: options.maxInputBytes ?? DEFAULT_MAX_INPUT_BYTES,
    approvalTtlMs: options.approvalTtlMs ?? DEFAULT_APPROVAL_TTL_MS,
    ledgerRetentionMs: options.ledgerRetentionMs ?? 0,
    capabilityTimeoutMs: options.capabilityTimeoutMs ?? DEFAULT_CAPABILITY_TIMEOUT_MS,
    impactTimeoutMs: options.impactTimeoutMs ?? DEFAULT_IMPACT_TIMEOUT_MS,
  };
  const r = options.runs ?? {};
  const runs = {
    concurrency: r.concurrency ?? 2,
    leaseMs: r.leaseMs ?? 30_000,
    pollMs: r.pollMs ?? 500,
    goalPollSec: r.goalPollSec ?? 60,
    goalWaitHours: r.goalWaitHours ?? 72,
    inboxCapacity: r.inboxCapacity ?? 16,
    refusedTurnPauseMs: r.refusedTurnPauseMs ?? 1000,
    commitWindowMs: r.commitWindowMs ?? DEFAULT_COMMIT_WINDOW_MS,
  };
  const positive = (name: string, value: unknown, allowZero = false) => {
    if (!(typeof value === 'number' && Number.isFinite(value) && (allowZero ? value >= 0 : value > 0)))
      throw new MediaAgentError(
        'OPTIONS_INVALID',
        `option ${name} must be a ${allowZero ? 'non-negative' : 'positive'} number; got ${String(value)}`,
        { option: name },
      );
  };
  for (const [name, value] of Object.entries(limits)) positive(name, value, name === 'ledgerRetentionMs');
  for (const [name, value] of Object.entries(runs)) positive(`runs.${name}`, value, name === 'commitWindowMs');
  // A timer cannot wait longer (Node.js clamps a longer delay to 1 ms).
  if (runs.commitWindowMs > MAX_TIMER_MS)
    throw new MediaAgentError(
      'OPTIONS_INVALID',
      `option runs.commitWindowMs must be at most ${MAX_TIMER_MS} ms; got ${String(runs.commitWindowMs)}`,
      { option: 'runs.commitWindowMs' },
    );
  const intents = {
    holdMs: options.intents?.holdMs ?? DEFAULT_INTENT_HOLD_MS,
    directHoldMs: options.intents?.directHoldMs ?? DEFAULT_INTENT_DIRECT_HOLD_MS,
  };
  for (const [name, value] of Object.entries(intents)) positive(`intents.${name}`, value);
  const budgets = { ...DEFAULT_RUN_BUDGETS, ...(r.budgets ?? {}) };
  const daily = { ...DEFAULT_DAILY_BUDGETS, ...(r.daily ?? {}) };
  for (const [name, value] of Object.entries({ ...budgets, ...daily }))
    if (value !== null) positive(`runs budget ${name}`, value, true);
  if (r.spending !== undefined) {
    const problem = spendingProblem(r.spending);
    if (problem)
      throw new MediaAgentError('OPTIONS_INVALID', `option runs.spending: ${problem}`, { option: 'runs.spending' });
  }
  const spending = resolveSpending(r.spending, r.daily);
  const maxTools = r.maxTools ?? 0;
  if (!(Number.isInteger(maxTools) && maxTools >= 0))
    throw new MediaAgentError(
      'OPTIONS_INVALID',
      `option runs.maxTools must be a non-negative integer; got ${String(maxTools)}`,
      { option: 'runs.maxTools' },
    );
  const contextWindowTokens = r.contextWindowTokens ?? DEFAULT_CONTEXT_WINDOW_TOKENS;
  positive('runs.contextWindowTokens', contextWindowTokens);
  const compactionThreshold = r.compactionThreshold ?? 0.8;
  if (!(typeof compactionThreshold === 'number' && compactionThreshold >= 0 && compactionThreshold < 1))
    throw new MediaAgentError(
      'OPTIONS_INVALID',
      `option runs.compactionThreshold must be in [0, 1); got ${String(compactionThreshold)}`,
      { option: 'runs.compactionThreshold' },
    );
  const middleware = r.middleware ?? [];
  validateRunMiddleware(middleware);
  const tracing = options.tracing as { tracer?: { startSpan?: unknown }; captureContent?: unknown } | undefined;
  if (
    tracing !== undefined &&
    (typeof tracing !== 'object' ||
      tracing === null ||
      (tracing.tracer !== undefined && typeof tracing.tracer?.startSpan !== 'function') ||
      (tracing.captureContent !== undefined && typeof tracing.captureContent !== 'boolean'))
  )
    throw new MediaAgentError(
      'OPTIONS_INVALID',
      'option tracing must be { tracer?: an OpenTelemetry Tracer (with startSpan), captureContent?: boolean }',
      { option: 'tracing' },
    );
  const history = options.history as { store?: Record<string, unknown> } | undefined;
  if (
    history !== undefined &&
    (typeof history !== 'object' ||
      history === null ||
      ['append', 'search', 'markCompacted'].some((m) => typeof history.store?.[m] !== 'function'))
  )
    throw new MediaAgentError(
      'OPTIONS_INVALID',
      'option history must be { store: a HistoryStore } (e.g. SqliteHistoryStore from @media-agent/sdk/sqlite), with append, search and markCompacted',
      { option: 'history.store' },
    );
  if (options.identity !== undefined && typeof options.identity?.roleOf !== 'function')
    throw new MediaAgentError('OPTIONS_INVALID', 'option identity must be an object with a roleOf(actor) function', {
      option: 'identity',
    });
  const thinking = options.model?.thinking;
  if (thinking !== undefined && !['off', 'low', 'medium', 'high'].includes(thinking as string))
    throw new MediaAgentError(
      'OPTIONS_INVALID',
      `option model.thinking must be off, low, medium or high; got ${String(thinking)}`,
      { option: 'model.thinking' },
    );
  const temperature = options.model?.temperature;
  if (
    temperature !== undefined &&
    !(typeof temperature === 'number' && Number.isFinite(temperature) && temperature >= 0 && temperature <= 2)
  )
    throw new MediaAgentError(
      'OPTIONS_INVALID',
      `option model.temperature must be a number from 0 to 2; got ${String(temperature)}`,
      { option: 'model.temperature' },
    );
  const checkOnStart = options.model?.checkOnStart;
  if (checkOnStart !== undefined && typeof checkOnStart !== 'boolean')
    throw new MediaAgentError(
      'OPTIONS_INVALID',
      `option model.checkOnStart must be true (check every provider at start), false (none) or absent (local dialects only); got ${String(checkOnStart)}`,
      { option: 'model.checkOnStart' },
    );
  const provider = options.model?.provider;
  if (provider !== undefined && typeof (provider as Partial<ModelProvider> | null)?.stream !== 'function')
    checkProviderConfig(provider, 'model.provider'); // a configuration: checked here, built when first resolved
  checkFallbacks(options.model as Record<string, unknown> | undefined);
  return {
    ...limits,
    retention: resolveRetention(options.retention, limits.ledgerRetentionMs),
    maintenance: resolveMaintenanceOptions(options.maintenance),
    schedules: resolveScheduleOptions(options.schedules),
    channels: resolveChannelsOptions(options.channels, options.runs?.inboxCapacity ?? 16),
    intents,
    auditCheckpointKey: resolveAuditCheckpointKey(options.audit),
    decisions: resolveDecisionOptions(options.decisions),
    limits: resolveHostLimits(options.limits),
    accessRecheckMs: resolveAccessRecheckMs(options.accessRecheckMs),
    model: options.model?.model ?? 'scripted',
    modelCheck: checkOnStart === true ? 'all' : checkOnStart === false ? 'none' : 'local',
    maxTokens: options.model?.maxTokens,
    thinking,
    temperature,
    fallbacks: options.model?.fallbacks ?? [],
    fallbackCooldownMs: options.model?.fallbackCooldownMs,
    learning: resolveLearningOptions(
      options.learning,
      options.skills !== undefined || options.memory !== undefined,
      r.contextWindowTokens,
    ),
    tracing: options.tracing,
    history: options.history,
    runs: {
      ...runs,
      budgets,
      daily,
      spending,
      systemPrompt: r.systemPrompt,
      loopGuard: r.loopGuard,
      results: r.results,
      maxTools,
      contextWindowTokens,
      compactionThreshold,
      middleware: [...middleware],
      code: r.code ? resolveCodeExecutionOptions(r.code) : undefined,
      images: r.images ?? {},
    },
  };
}

/**
 * Builds a dependency-injection container (a tsyringe child container) with a default
 * implementation registered for every port and service of {@link Tokens}. Defaults are singletons of this container. A host
 * replaces any of them in `options.configure` (or by registering on the returned container before
 * the first resolve): the latest registration wins.
 *
 * @param options - storage, clock, ids, logger, limits; see {@link AgentOptions}
 * @returns the container; resolve `Tokens.AgentHost` from it
 * @throws {@link MediaAgentError} `OPTIONS_INVALID` for a non-positive limit or invalid `runs.middleware`
 *
 * @example
 * ```ts
 * import { createAgentContainer, Tokens, type AgentHost } from '@media-agent/sdk';
 *
 * const container = createAgentContainer({
 *   configure: (c) => c.register(Tokens.Clock, { useValue: myClock }), // replace one port
 * });
 * const host = container.resolve<AgentHost>(Tokens.AgentHost);
 * ```
 * @public
 */
export function createAgentContainer(options: AgentOptions = {}): AgentContainer {
  const resolved = resolveOptions(options);
  const redactor = hostRedactor(options);
  const skills = skillStoreOf(options);
  const { container: rootContainer, instanceCachingFactory } = loadTsyringe();
  const c = rootContainer.createChildContainer();
  const single = <T>(factory: (c: DependencyContainer) => T) => ({ useFactory: instanceCachingFactory<T>(factory) });
  c.register(Tokens.AgentOptions, { useValue: resolved });
  c.register(Tokens.SecretRedactor, { useValue: redactor });
  // Everything stored, and every log line, passes through the one redaction step (docs/secrets.md).
  c.register(Tokens.StorageAdapter, { useValue: redactingStorage(options.storage ?? new MemoryStorage(), redactor) });
  c.register(Tokens.Clock, { useValue: options.clock ?? new SystemClock() });
  c.register(Tokens.IdGenerator, { useValue: options.ids ?? new RandomIdGenerator() });
  c.register(Tokens.Logger, { useValue: redactingLogger(options.logger ?? new ConsoleLogger('warn'), redactor) });
  // The host's resolver is bounded: one that never answers counts as `user` after IDENTITY_TIMEOUT_MS.
  c.register(
    Tokens.Identity,
    single((d) =>
      options.identity
        ? withIdentityDeadline(options.identity, IDENTITY_TIMEOUT_MS, (actor) =>
            resolvePort(d, Tokens.Logger).warn(
              'the identity resolver did not answer in time; the actor counts as user',
              {
                actor,
                timeoutMs: IDENTITY_TIMEOUT_MS,
              },
            ),
          )
        : DEFAULT_IDENTITY_RESOLVER,
    ),
  );
  c.register(
    Tokens.Authorizer,
    single(() => new PolicyAuthorizer()),
  );
  c.register(
    Tokens.InvocationLedger,
    single(
      (d) =>
        new DefaultInvocationLedger(
          d.resolve(Tokens.StorageAdapter),
          d.resolve(Tokens.Clock),
          d.resolve(Tokens.IdGenerator),
        ),
    ),
  );
  c.register(
    Tokens.CapabilityRegistry,
    single(
      (d) =>
        new DefaultCapabilityRegistry({
          storage: d.resolve(Tokens.StorageAdapter),
          authorizer: d.resolve(Tokens.Authorizer),
          ledger: d.resolve(Tokens.InvocationLedger),
          clock: d.resolve(Tokens.Clock),
          ids: d.resolve(Tokens.IdGenerator),
          logger: d.resolve(Tokens.Logger),
          maxInputBytes: resolved.maxInputBytes,
          capabilityTimeoutMs: resolved.capabilityTimeoutMs,
          impactTimeoutMs: resolved.impactTimeoutMs,
          intents: resolved.intents,
          identity: d.resolve(Tokens.Identity),
        }),
    ),
  );
  const svc = <T>(make: (s: MediaAgentDeps & { identity: IdentityResolver }) => T) =>
    single((d) =>
      make({
        storage: d.resolve(Tokens.StorageAdapter),
        clock: d.resolve(Tokens.Clock),
        ids: d.resolve(Tokens.IdGenerator),
        identity: d.resolve(Tokens.Identity),
      }),
    );
  c.register(
    Tokens.ApprovalService,
    single((d) => {
      const registry = resolvePort(d, Tokens.CapabilityRegistry);
      const identity = resolvePort(d, Tokens.Identity);
      const clock = resolvePort(d, Tokens.Clock);
      const editCheck = approvalEditCheck({
        capabilities: registry,
        authorizer: d.resolve(Tokens.Authorizer),
        identity,
        clock,
        logger: d.resolve(Tokens.Logger),
        impactTimeoutMs: resolved.impactTimeoutMs,
      });
      return new ApprovalService(
        d.resolve(Tokens.StorageAdapter),
        clock,
        d.resolve(Tokens.IdGenerator),
        resolved.approvalTtlMs,
        identity,
        editCheck,
        resolved.maxInputBytes,
      );
    }),
  );
  c.register(
    Tokens.GrantService,
    single((d) => {
      const registry = resolvePort(d, Tokens.CapabilityRegistry);
      return new GrantService(
        d.resolve(Tokens.StorageAdapter),
        d.resolve(Tokens.Clock),
        d.resolve(Tokens.IdGenerator),
        () => registry.list(),
        d.resolve(Tokens.Identity),
      );
    }),
  );
  c.register(
    Tokens.PlanService,
    svc((s) => new PlanService(s.storage, s.clock, s.ids, resolved.maxInputBytes)),
  );
  c.register(
    Tokens.PolicyService,
    svc((s) => new PolicyService(s.storage, s.clock, s.ids, s.identity)),
  );
  c.register(
    Tokens.AutomationService,
    svc((s) => new AutomationService(s.storage, s.identity)),
  );
  c.register(
    Tokens.ModelProvider,
    single(() => toProvider(options.model?.provider)),
  );
  c.register(
    Tokens.TokenCounter,
    single(() => new TiktokenCounter()),
  );
  c.register(Tokens.GoalFacts, { useValue: options.goalFacts ?? NO_GOAL_FACTS });
  c.register(
    Tokens.RunEventBus,
    single((d) => new RunEventBus(d.resolve(Tokens.StorageAdapter), d.resolve(Tokens.Clock))),
  );
  const memory = options.memory;
  c.register(
    Tokens.MemoryService,
    single((d) =>
      memory ? memoryServiceFor(memory, resolvePort(d, Tokens.Clock), resolvePort(d, Tokens.Identity)) : null,
    ),
  );
  c.register(
    Tokens.AgentHost,
    single((d) =>
      redactingHost(
        buildAgentHost(d, resolved, skills, options.model?.provider),
        resolvePort(d, Tokens.SecretRedactor),
      ),
    ),
  );
  options.configure?.(c);
  return c;
}

/**
 * The host façade and the run machinery behind it (tool result store, run driver, worker pool, run
 * service), built from the container's ports and services.
 */
/** The skill store the `skills` option asks for (none when it is absent: personal skills are off). */
function skillStoreOf(options: AgentOptions): SkillStore | undefined {
  const skills = options.skills;
  if (skills === undefined) return undefined;
  if ('store' in skills) return skills.store;
  if (typeof skills.dataDir !== 'string' || skills.dataDir === '')
    throw new MediaAgentError('OPTIONS_INVALID', 'skills.dataDir must be a directory path');
  return new FileSkillStore({
    dataDir: skills.dataDir,
    ...(skills.publicDir !== undefined ? { publicDir: skills.publicDir } : {}),
  });
}

function buildAgentHost(
  d: AgentContainer,
  resolved: ResolvedAgentOptions,
  skills: SkillStore | undefined,
  modelProviderOption: ModelProvider | ModelProviderConfig | undefined,
): AgentHost {
  const storage = resolvePort(d, Tokens.StorageAdapter);
  const clock = resolvePort(d, Tokens.Clock);
  const ids = resolvePort(d, Tokens.IdGenerator);
  const logger = resolvePort(d, Tokens.Logger);
  const capabilities = resolvePort(d, Tokens.CapabilityRegistry);
  const approvals = resolvePort(d, Tokens.ApprovalService);
  const bus = resolvePort(d, Tokens.RunEventBus);
  const memory = resolvePort(d, Tokens.MemoryService);
  const redactor = resolvePort(d, Tokens.SecretRedactor);
  const provider = d.resolve(Tokens.ModelProvider);
  // A provider registered through `configure` names its credentials too (docs/secrets.md).
  if (isSecretHolder(provider)) redactor.add(...provider.secretValues());
  // The fallback chain's providers, built here (checked in resolveOptions); their credentials are redacted too.
  // Every call to the host's providers is counted: `host.replayRun` measures that a replay made none.
  const modelCalls: ModelCallCounter = { calls: 0 };
  const primary = countingProvider(redactingProvider(provider, redactor), modelCalls);
  const fallbacks = resolved.fallbacks.map((entry, i) => {
    const built = toProvider(entry.provider, `model.fallbacks[${i}].provider`);
    if (isSecretHolder(built)) redactor.add(...built.secretValues());
    return { entry, provider: built };
  });
  let runs: RunService | undefined;
  const results = new ToolResultStore({ ...(resolved.runs.results ?? {}), clock, ids });
  const identity = resolvePort(d, Tokens.Identity);
  const code = resolved.runs.code
    ? new CodeExecution(resolved.runs.code, { capabilities, results, clock, roleOf: (actor) => identity.roleOf(actor) })
    : undefined;
  const learning = resolved.learning ? { settings: resolved.learning, reviews: new LearningReviews() } : undefined;
  // Spending budgets per person and for the household (docs/budgets.md); a change wakes the runs held at a cap.
  const budgets = new BudgetService({
    storage,
    clock,
    ids,
    identity,
    options: resolved.runs.spending,
    logger,
    onWake: () => workers.wake(),
  });
  // Message channels (docs/channels.md): the secret that signs their buttons is loaded by host.start().
  const channelSecret = resolved.channels ? new ChannelSecret() : undefined;
  const channelDispatcher = resolved.channels
    ? new OutboxDispatcher({
        ...resolved.channels.outbox,
        storage,
        ports: [...resolved.channels.ports.values()],
        clock,
        logger,
      })
    : undefined;
  const driver = new RunDriver({
    spending: budgets.ledger,
    ...(learning ? { learning } : {}),
    results,
    images: new ImageDelivery(resolved.runs.images, resolved.model),
    ...(code ? { code } : {}),
    counter: resolvePort(d, Tokens.TokenCounter),
    startSubagent: (parent, goal, capabilityIds, budgets, leaseOwner) =>
      runs!.startRun(
        {
          goal,
          mode: 'plan_only',
          actor: `agent:${parent.id}`,
          capabilityAllowlist: capabilityIds,
          budgets,
          origin: parent.origin,
          ...(parent.sessionId ? { sessionId: parent.sessionId } : {}),
        },
        {
          parentRunId: parent.id,
          parentDepth: parent.depth,
          leaseOwner,
          leaseExpiresAt: parent.leaseExpiresAt ?? clock.now() + resolved.runs.leaseMs,
        },
      ),
    storage,
    identity: d.resolve(Tokens.Identity),
    capabilities,
    ledger: d.resolve(Tokens.InvocationLedger),
    approvals,
    provider: primary,
    ...(fallbacks.length > 0
      ? {
          route: new ModelRoute(
            [
              {
                provider: primary,
                model: resolved.model,
                maxTokens: resolved.maxTokens,
                thinking: resolved.thinking,
              },
              ...fallbacks.map(({ entry, provider: p }) => ({
                provider: countingProvider(redactingProvider(p, redactor), modelCalls),
                model: entry.model,
                maxTokens: entry.maxTokens ?? resolved.maxTokens,
                thinking: entry.thinking ?? resolved.thinking,
              })),
            ],
            clock,
            resolved.fallbackCooldownMs,
          ),
        }
      : {}),
    goalFacts: d.resolve(Tokens.GoalFacts),
    bus,
    clock,
    ids,
    logger,
    middleware: resolved.runs.middleware,
    onRunEnd: (run) => decisions.onRunEnded(run),
    tracing: {
      ...resolved.tracing,
      tracer: redactingTracer(resolved.tracing?.tracer ?? trace.getTracer(TRACER_NAME), redactor),
    },
    ...(resolved.history ? { history: redactingHistoryStore(resolved.history.store, redactor) } : {}),
    ...(skills ? { skills } : {}),
    ...(memory ? { memory } : {}),
    settings: runDriverSettings(resolved),
    ...(channelSecret && resolved.channels
      ? {
          replies: channelRepliesOf(resolved.channels, channelSecret, clock),
          onOutboxWritten: () => channelDispatcher?.wake(),
        }
      : {}),
  });
  // A channel run that ends outside a step (a direct cancel, a driver failure) tells its chat too.
  const channelEnds =
    channelSecret && resolved.channels
      ? {
          channelNotice: channelEndNotice({
            capabilities: (id) => resolved.channels?.ports.get(id)?.capabilities,
            secret: () => channelSecret.get(),
            now: () => clock.now(),
          }),
          onOutboxWritten: () => channelDispatcher?.wake(),
        }
      : {};
  const workers = new WorkerPool({ storage, bus, driver, clock, ids, logger, settings: resolved.runs, ...channelEnds });
  const decisions = new DecisionService({
    storage,
    capabilities,
    bus,
    clock,
    ids,
    logger,
    startRun: (input, extras) => runs!.startRun(input, undefined, extras),
    settings: resolved.decisions,
    maxDurationSec: resolved.runs.budgets.maxDurationSec,
    maxInputBytes: resolved.maxInputBytes,
    identity: d.resolve(Tokens.Identity),
  });
  runs = new RunService({
    storage,
    capabilities,
    bus,
    clock,
    ids,
    budgets: resolved.runs.budgets,
    wake: () => workers.wake(),
    offerLease: () => workers.offerLease(),
    abortLocal: (runId) => workers.abortLocal(runId),
    identity: resolvePort(d, Tokens.Identity),
    ...channelEnds,
  });
  // The schedule runner (docs/schedules.md), when `schedules.enabled`: fires due ticks with the workers.
  const scheduling = resolved.schedules;
  const scheduleRunner = scheduling.enabled
    ? new ScheduleRunner({
        storage,
        runs,
        capabilities,
        identity,
        bus,
        clock,
        ids,
        logger,
        wake: () => workers.wake(),
        owner: `host:${ids.next('tick')}`,
        settings: { pollMs: scheduling.pollMs, graceMs: scheduling.graceMs, maxPerPoll: scheduling.maxPerPoll },
      })
    : undefined;
  // Retention and the daily prune (docs/operations.md#retention-and-prune); one lease owner name per host.
  const maintenanceOwner = `host:${ids.next('mnt')}`;
  const maintenance = new MaintenanceService({
    storage,
    clock,
    logger,
    retention: resolved.retention,
    owner: maintenanceOwner,
    checkpointKey: resolved.auditCheckpointKey,
  });
  const schedule = resolved.maintenance.schedule;
  const scheduler = schedule
    ? new MaintenanceScheduler({
        schedule,
        pollMs: resolved.maintenance.pollMs,
        clock,
        logger,
        owner: maintenanceOwner,
        leases: () => maintenance.repository(),
        prune: (signal) => maintenance.prune({ signal }),
      })
    : undefined;
  // host.schedules (docs/schedules.md).
  const schedules = new ScheduleService({
    storage,
    clock,
    ids,
    identity: resolvePort(d, Tokens.Identity),
    capabilities,
    rules: { minIntervalMs: resolved.schedules.minIntervalMs },
  });
  // host.undo (docs/approvals.md#undo): inverses through the one invocation path; a failed one raises a decision.
  const undo = new UndoService({
    storage,
    capabilities,
    identity,
    clock,
    ids,
    logger,
    raiseDecision: (input) => decisions.raise(input),
  });
  // host.forkRun / listForkPoints / undoLastTurn (docs/forks.md).
  const forks = new ForkService({
    storage,
    capabilities,
    bus,
    clock,
    identity: resolvePort(d, Tokens.Identity),
    runs,
    wake: () => workers.wake(),
  });
  // host.replayRun (docs/evaluation.md#replay-without-side-effects): an isolated host per replay.
  const replay = (runId: string, o: { timeoutMs?: number }) =>
    replayStoredRun(
      {
        storage,
        capabilities,
        identity,
        settings: {
          budgets: resolved.runs.budgets,
          ...(resolved.runs.loopGuard ? { loopGuard: resolved.runs.loopGuard } : {}),
          contextWindowTokens: resolved.runs.contextWindowTokens,
          compactionThreshold: resolved.runs.compactionThreshold,
          maxTools: resolved.runs.maxTools,
          goalWaitHours: resolved.runs.goalWaitHours,
          inboxCapacity: resolved.runs.inboxCapacity,
          ...(resolved.runs.systemPrompt !== undefined ? { systemPrompt: resolved.runs.systemPrompt } : {}),
          ...(resolved.runs.results ? { results: resolved.runs.results } : {}),
        },
        createHost: createAgentHost,
        modelCalls: () => modelCalls.calls,
        handlerCalls: () => hostCodeCalls(capabilities) ?? 0,
      },
      runId,
      o,
    );
  return new DefaultAgentHost({
    replay,
    maintenance,
    schedules,
    undo,
    forks,
    ...(scheduler ? { scheduler } : {}),
    ...(scheduleRunner ? { scheduleRunner } : {}),
    checkModels: () =>
      checkProviderModels(
        [
          { path: 'model', provider: modelProviderOption, model: resolved.model },
          ...resolved.fallbacks.map((entry, i) => ({
            path: `model.fallbacks[${i}]`,
            provider: entry.provider,
            model: entry.model,
          })),
        ],
        { which: resolved.modelCheck },
      ),
    clock,
    identity: resolvePort(d, Tokens.Identity),
    modelConfigured: d.resolve(Tokens.ModelProvider) !== MODEL_NOT_CONFIGURED,
    capabilities,
    approvals,
    grants: d.resolve(Tokens.GrantService),
    plans: d.resolve(Tokens.PlanService),
    policies: d.resolve(Tokens.PolicyService),
    automation: d.resolve(Tokens.AutomationService),
    ledger: d.resolve(Tokens.InvocationLedger),
    storage,
    logger,
    options: d.resolve(Tokens.AgentOptions),
    runs,
    workers,
    bus,
    decisions,
    budgets,
    memory: memory ?? undefined,
    ...(learning ? { learning: { reviews: learning.reviews, cancelWaitMs: learning.settings.cancelWaitMs } } : {}),
    ...(code ? { onStop: () => code.close() } : {}),
    ...(resolved.channels && channelSecret
      ? { channels: { options: resolved.channels, secret: channelSecret, ids, dispatcher: channelDispatcher! } }
      : {}),
  });
}

/** The step commits' channel side: rows derived from each step of a channel run, inserted with the step. */
function channelRepliesOf(channels: ResolvedChannelsOptions, secret: ChannelSecret, clock: Clock): StepReplies {
  return channelReplies({
    capabilities: (id) => channels.ports.get(id)?.capabilities,
    secret: () => secret.get(),
    now: () => clock.now(),
    // Inserted by writeStepIn with the rest of the step (StepWrites.outbox).
    write: async (rows, step) => {
      step.writes.outbox.push(...rows);
    },
  });
}

/** Decision options with defaults, checked. */
function resolveDecisionOptions(o: DecisionOptions | undefined): ResolvedDecisionOptions {
  if (o !== undefined && (typeof o !== 'object' || o === null || Array.isArray(o)))
    throw new MediaAgentError('OPTIONS_INVALID', 'option decisions must be an object', { option: 'decisions' });
  const subjects = (o as { subjects?: { exists?: unknown } } | undefined)?.subjects;
  if (subjects !== undefined && typeof subjects?.exists !== 'function')
    throw new MediaAgentError(
      'OPTIONS_INVALID',
      'option decisions.subjects must be an object with an exists({ type, id }) function',
      { option: 'decisions.subjects' },
    );
  const resolved = { ...DEFAULT_DECISION_OPTIONS, ...(o ?? {}), subjects: o?.subjects };
  for (const name of ['investigateMaxToolCalls', 'investigateMaxAttempts', 'recoverVerifySec'] as const) {
    const v = resolved[name];
    if (!(typeof v === 'number' && Number.isInteger(v) && v >= (name === 'investigateMaxAttempts' ? 0 : 1)))
      throw new MediaAgentError(
        'OPTIONS_INVALID',
        `option decisions.${name} must be an integer of at least ${name === 'investigateMaxAttempts' ? 0 : 1}; got ${String(v)}`,
        {
          option: `decisions.${name}`,
        },
      );
  }
  if (typeof resolved.autoInvestigate !== 'boolean')
    throw new MediaAgentError('OPTIONS_INVALID', 'option decisions.autoInvestigate must be a boolean', {
      option: 'decisions.autoInvestigate',
    });
  if (resolved.autoInvestigateMode !== 'investigate' && resolved.autoInvestigateMode !== 'recover')
    throw new MediaAgentError(
      'OPTIONS_INVALID',
      'option decisions.autoInvestigateMode must be investigate or recover',
      {
        option: 'decisions.autoInvestigateMode',
      },
    );
  return resolved;
}

/** The run driver's settings, from the resolved options. */
function runDriverSettings(resolved: ResolvedAgentOptions): RunDriverSettings {
  return {
    model: resolved.model,
    maxTokens: resolved.maxTokens,
    thinking: resolved.thinking,
    temperature: resolved.temperature,
    systemPrompt: resolved.runs.systemPrompt,
    daily: resolved.runs.daily,
    goalPollSec: resolved.runs.goalPollSec,
    goalWaitHours: resolved.runs.goalWaitHours,
    impactTimeoutMs: resolved.impactTimeoutMs,
    inboxCapacity: resolved.runs.inboxCapacity,
    loopGuard: resolved.runs.loopGuard,
    maxTools: resolved.runs.maxTools,
    contextWindowTokens: resolved.runs.contextWindowTokens,
    compactionThreshold: resolved.runs.compactionThreshold,
    maxInputBytes: resolved.maxInputBytes,
    refusedTurnPauseMs: resolved.runs.refusedTurnPauseMs,
    commitWindowMs: resolved.runs.commitWindowMs,
    recoverVerifySec: resolved.decisions.recoverVerifySec,
  };
}

/** The provider from an instance or a configuration; without one, a provider whose every call fails `MODEL_NOT_CONFIGURED`. */
function toProvider(provider: ModelProvider | ModelProviderConfig | undefined, path = 'model.provider'): ModelProvider {
  if (provider === undefined) return MODEL_NOT_CONFIGURED;
  return typeof (provider as ModelProvider).stream === 'function'
    ? (provider as ModelProvider)
    : modelProviderFrom(provider, path);
}

/** The model provider of a host that configured none: `startRun` refuses, and a resumed run fails at its first turn. */
const MODEL_NOT_CONFIGURED: ModelProvider = Object.freeze({
  id: 'not-configured',
  // biome-ignore lint/correctness/useYield: the stream fails on its first step, as a provider's failed call does
  async *stream(): AsyncIterable<never> {
    throw new ModelNotConfiguredError();
  },
});

/** GoalFacts when the host gives none: nothing can be verified. */
const NO_GOAL_FACTS: GoalFacts = { forRun: async () => ({ plans: [], downloads: [], organizes: [], library: [] }) };

interface MediaAgentDeps {
  storage: StorageAdapter;
  clock: Clock;
  ids: IdGenerator;
}

/**
 * Builds the container and resolves the {@link AgentHost}: the one call a host needs to embed the
 * runtime. Call `host.start()` before use and `host.stop()` on shutdown.
 * @param options - storage, model, limits and run settings; every field optional (see {@link AgentOptions})
 * @returns the host, not started
 * @throws {@link MediaAgentError} `OPTIONS_INVALID` for a non-positive limit or invalid `runs.middleware`
 *
 * @example
 * ```ts
 * import { createAgentHost, createModelProvider } from '@media-agent/sdk';
 * import { SqliteStorage } from '@media-agent/sdk/sqlite';
 *
 * const host = createAgentHost({
 *   storage: new SqliteStorage({ path: './data/agent.sqlite' }),
 *   model: {
 *     provider: createModelProvider({ provider: 'anthropic', apiKey: process.env.ANTHROPIC_API_KEY! }),
 *     model: 'claude-sonnet-4-5',
 *   },
 *   runs: { concurrency: 2, budgets: { maxToolCalls: 40 } },
 * });
 * await host.start(); // migrates; calls interrupted by a crash become `unknown`
 * // … register capabilities, start runs …
 * await host.stop();
 * ```
 * @public
 */
export function createAgentHost(options: AgentOptions = {}): AgentHost {
  return createAgentContainer(options).resolve(Tokens.AgentHost) as AgentHost;
}

/**
 * A child container for one run: it inherits every registration of `parent` and adds
 * `Tokens.RunScope`; per-run registrations made on it do not leak to other runs.
 * @param parent - the agent container
 * @param scope - the run id and actor (`agent:<runId>` when omitted)
 * @internal
 */
export function createRunContainer(parent: AgentContainer, scope: { runId: string; actor?: string }): AgentContainer {
  const child = parent.createChildContainer();
  const value: RunScope = { runId: scope.runId, actor: scope.actor ?? `agent:${scope.runId}` };
  child.register(Tokens.RunScope, { useValue: value });
  return child;
}
