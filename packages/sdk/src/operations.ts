/**
 * `@media-agent/sdk/operations`: running an agent host as a process — SIGTERM and SIGINT wired to a clean drain
 * (`host.stop({ drainMs })`), and the drain's default; retention, `host.maintenance` (prune, usage) and the
 * scheduled prune (docs/operations.md#retention-and-prune); the `schedules` option, the daily caps and run budgets of
 * a schedule and its tick times (docs/schedules.md).
 *
 * @remarks
 * `host.stop({ drainMs })` itself and its `StopOptions` / `DrainSummary` are in the root entry; this entry is for
 * the process around the host (a NAS service, a docker container). See docs/operations.md.
 *
 * @example
 * ```ts
 * import { createAgentHost } from '@media-agent/sdk';
 * import { stopOnSignals } from '@media-agent/sdk/operations';
 *
 * const host = createAgentHost({});
 * await host.start();
 * // docker stop waits 10 s before SIGKILL: drain for 8 s.
 * const unsubscribe = stopOnSignals(host, { drainMs: 8_000 });
 * ```
 *
 * @packageDocumentation
 */
export { DEFAULT_DRAIN_MS } from './runtime/drain-options';
export { stopOnSignals, type StopOnSignalsOptions, type StoppableHost } from './runtime/stop-on-signals';
export {
  DEFAULT_RETENTION,
  MAX_RETENTION_AGE_DAYS,
  MAX_RETENTION_COUNT,
  resolveRetention,
  retentionCriteria,
  type ResolvedRetention,
  type ResolvedRetentionRule,
  type RetentionOptions,
  type RetentionRule,
} from './runtime/maintenance/retention-options';
export {
  DEFAULT_MAINTENANCE_SCHEDULE,
  resolveMaintenanceOptions,
  type MaintenanceOptions,
  type ResolvedMaintenanceOptions,
} from './runtime/maintenance/maintenance-options';
export { nextFireTime, type MaintenanceSchedule } from './runtime/maintenance/next-fire-time';
export { MaintenanceBusyError } from './runtime/maintenance/maintenance-errors';
export type { AuditOptions } from './runtime/audit-trail';
export { DEFAULT_INTENT_DIRECT_HOLD_MS, DEFAULT_INTENT_HOLD_MS } from './capabilities/intent-join';
export {
  DEFAULT_SCHEDULE_OPTIONS,
  resolveScheduleOptions,
  type ResolvedScheduleOptions,
  type ScheduleOptions,
} from './runtime/schedules/schedule-options';
export {
  DEFAULT_SCHEDULE_DAILY_CAPS,
  checkScheduleBudgets,
  scheduleDailyCaps,
  scheduleRunBudgets,
  type ScheduleDailyCaps,
} from './runtime/schedules/schedule-budgets';
export { nextTickAfter, ticksBetween, type ScheduleTiming } from './runtime/schedules/schedule-timing';
export {
  DEFAULT_PRUNE_BATCH_SIZE,
  MAINTENANCE_LEASE_MS,
  type MaintenanceHandle,
  type MaintenanceUsage,
  type PrunedKind,
  type PruneOptions,
  type PruneProgress,
  type PruneSummary,
} from './runtime/maintenance/maintenance-service';
export {
  RETENTION_KINDS,
  type PruneCount,
  type PruneCriteria,
  type RetentionKind,
} from './ports/maintenance-repository';
