import type { IntentOptions } from '../capabilities/intent-join';
// The option names createAgentHost knows, per group: a misspelt name (`learning: { reveiw: false }`,
// `runs: { pollMS: 5 }`) is refused when the host is made instead of being ignored silently. The
// `satisfies` clauses keep each list equal to its interface.
import { MediaAgentError } from '../core/errors';
import type { MemoryOptions } from '../memory/memory-options';
import type { AgentOptions, HistoryOptions, ModelOptions, RunOptions } from '../runtime/agent-options';
import type { DecisionOptions } from '../runtime/decisions/decision-settings';
import type { LoopGuardConfig } from '../runtime/guardrails/loop-guard';
import type { LearningOptions } from '../runtime/learning/learning-options';
import type { DailyBudgets, RunBudgets } from '../runtime/run-budgets';
import type { SpendingOptions } from '../runtime/budgets/spending-settings';
import type { TracingOptions } from '../runtime/tracing/tracing-options';
import type { HostLimits } from '../runtime/limits/host-limits';
import type { AuditOptions } from '../runtime/audit-trail';
import type { ScheduleOptions } from '../runtime/schedules/schedule-options';
import type { RedactOptions } from '../core/secret-redactor';
import type { ChannelsOptions } from '../runtime/channels/channels-options';

type Keys<T> = { readonly [K in keyof Required<T>]: true };

const AGENT = {
  storage: true,
  clock: true,
  ids: true,
  logger: true,
  maxInputBytes: true,
  capabilityTimeoutMs: true,
  impactTimeoutMs: true,
  approvalTtlMs: true,
  ledgerRetentionMs: true,
  retention: true,
  maintenance: true,
  schedules: true,
  intents: true,
  audit: true,
  model: true,
  goalFacts: true,
  identity: true,
  runs: true,
  tracing: true,
  history: true,
  skills: true,
  decisions: true,
  configure: true,
  memory: true,
  learning: true,
  limits: true,
  accessRecheckMs: true,
  redact: true,
  channels: true,
} as const satisfies Keys<AgentOptions>;

const MODEL = {
  provider: true,
  model: true,
  maxTokens: true,
  thinking: true,
  temperature: true,
  fallbacks: true,
  fallbackCooldownMs: true,
  checkOnStart: true,
} as const satisfies Keys<ModelOptions>;

const RUNS = {
  concurrency: true,
  leaseMs: true,
  pollMs: true,
  goalPollSec: true,
  goalWaitHours: true,
  inboxCapacity: true,
  budgets: true,
  daily: true,
  spending: true,
  systemPrompt: true,
  loopGuard: true,
  maxTools: true,
  contextWindowTokens: true,
  compactionThreshold: true,
  results: true,
  refusedTurnPauseMs: true,
  commitWindowMs: true,
  middleware: true,
  code: true,
  images: true,
} as const satisfies Keys<RunOptions>;

const BUDGETS = {
  maxToolCalls: true,
  maxDurationSec: true,
  maxTokensPerRun: true,
  maxCostUsdPerRun: true,
  maxModelCalls: true,
} as const satisfies Keys<RunBudgets>;

const DAILY = { agentMaxRunsPerDay: true, agentMaxCostUsdPerDay: true } as const satisfies Keys<DailyBudgets>;
const SPENDING = { roles: true, people: true, household: true } as const satisfies Keys<SpendingOptions>;

const LOOP_GUARD = {
  sameCallFailWarnAt: true,
  sameCallFailBlockAt: true,
  sameToolFailWarnAt: true,
  sameToolFailStopAt: true,
  sameResultWarnAt: true,
  sameResultBlockAt: true,
  identicalCallsNoticeAt: true,
  identicalCallsStopAt: true,
  cycleMinPeriod: true,
  cycleMaxPeriod: true,
  cycleWindow: true,
  cycleWarnLaps: true,
  cycleStopLaps: true,
  maxSearches: true,
  maxSubagents: true,
  searchTools: true,
  subagentTools: true,
  failureTolerantTools: true,
  pollingTools: true,
  pollingActions: true,
  readOnlyTools: true,
  maxContinuations: true,
  blockedCallsStopAt: true,
} as const satisfies Keys<LoopGuardConfig>;

const LEARNING = {
  review: true,
  prompt: true,
  maxModelCalls: true,
  cancelWaitMs: true,
  onReview: true,
} as const satisfies Keys<LearningOptions>;

const MEMORY = { dataDir: true, store: true, regexDeadlineMs: true } as const satisfies Keys<MemoryOptions>;
const HISTORY = { store: true } as const satisfies Keys<HistoryOptions>;
const LIMITS = {
  streamsPerActor: true,
  streamsTotal: true,
  runStartsPerMinutePerActor: true,
  runStartsPerMinuteTotal: true,
} as const satisfies Keys<HostLimits>;
const SKILLS = { dataDir: true, publicDir: true, store: true } as const;
const TRACING = { tracer: true, captureContent: true } as const satisfies Keys<TracingOptions>;
const DECISIONS = {
  autoInvestigate: true,
  autoInvestigateMode: true,
  investigateMaxToolCalls: true,
  investigateMaxAttempts: true,
  recoverVerifySec: true,
  choiceWaitMs: true,
  subjects: true,
} as const satisfies Keys<DecisionOptions>;

/** The groups checked, by their path in the options. */
const AUDIT = { checkpointKey: true } as const satisfies Keys<AuditOptions>;
const REDACT = { secrets: true, patterns: true } as const satisfies Keys<RedactOptions>;
const SCHEDULES = {
  enabled: true,
  pollMs: true,
  graceMs: true,
  minIntervalMs: true,
  maxPerPoll: true,
} as const satisfies Keys<ScheduleOptions>;

const INTENTS = { holdMs: true, directHoldMs: true } as const satisfies Keys<IntentOptions>;
const CHANNELS = { ports: true, inboxLimit: true, secret: true, outbox: true } as const satisfies Keys<ChannelsOptions>;

const GROUPS: ReadonlyArray<readonly [path: readonly string[], keys: Readonly<Record<string, true>>]> = [
  [[], AGENT],
  [['model'], MODEL],
  [['runs'], RUNS],
  [['runs', 'budgets'], BUDGETS],
  [['runs', 'daily'], DAILY],
  [['runs', 'spending'], SPENDING],
  [['runs', 'loopGuard'], LOOP_GUARD],
  [['learning'], LEARNING],
  [['memory'], MEMORY],
  [['history'], HISTORY],
  [['skills'], SKILLS],
  [['tracing'], TRACING],
  [['decisions'], DECISIONS],
  [['limits'], LIMITS],
  [['redact'], REDACT],
  [['audit'], AUDIT],
  [['schedules'], SCHEDULES],
  [['intents'], INTENTS],
  [['channels'], CHANNELS],
];

/** Edit distance of two short names (for "did you mean"). */
function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const next = Math.min(row[j]! + 1, row[j - 1]! + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = row[j]!;
      row[j] = next;
    }
  }
  return row[b.length]!;
}

/** The known name closest to `name`, when one is close enough to be a typo. */
function suggestion(name: string, known: readonly string[]): string | undefined {
  const lower = name.toLowerCase();
  let best: { key: string; d: number } | undefined;
  for (const key of known) {
    const d = key.toLowerCase() === lower ? 0 : distance(lower, key.toLowerCase());
    if (d <= Math.max(2, Math.floor(key.length / 3)) && (!best || d < best.d)) best = { key, d };
  }
  return best?.key;
}

/**
 * Refuses option names the host does not know, in every group it reads (top level, `model`, `runs` and
 * its `budgets`, `daily`, `loopGuard`, `learning`, `memory`, `history`, `skills`, `tracing`, `decisions`, `limits`).
 * Groups that are not plain objects are left to the checks of their own values.
 * @throws {@link MediaAgentError} `OPTIONS_INVALID` naming the unknown option (and the likely one meant)
 */
export function checkOptionNames(options: object): void {
  for (const [path, keys] of GROUPS) {
    let value: unknown = options;
    for (const part of path) value = (value as Record<string, unknown> | null | undefined)?.[part];
    if (typeof value !== 'object' || value === null || Array.isArray(value)) continue;
    const proto = Object.getPrototypeOf(value);
    if (proto !== Object.prototype && proto !== null) continue; // a class instance (a store, a tracer) is not a group
    for (const name of Object.keys(value)) {
      if (Object.hasOwn(keys, name)) continue;
      const option = [...path, name].join('.');
      const meant = suggestion(name, Object.keys(keys));
      throw new MediaAgentError(
        'OPTIONS_INVALID',
        `unknown option ${option}${meant ? ` (did you mean ${[...path, meant].join('.')}?)` : ''}; known: ${Object.keys(keys).join(', ')}`,
        { option },
      );
    }
  }
}
