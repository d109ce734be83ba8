// The schedule routes' body parser: what is not shaped like a schedule is refused (SCHEDULE_INVALID, 422) before the
// host sees it, naming each unknown field and each wrong value; what is shaped like one passes unchanged.
import { describe, expect, it } from 'vitest';
import { isMediaAgentError } from '../../src/index';
import { problemStatus, toProblem } from '../../src/http';
import {
  IDEMPOTENCY_KEY_MAX,
  parseIdempotencyKey,
  parseScheduleCreate,
  parseScheduleUpdate,
} from '../../src/http/schedule-request';

/** The SCHEDULE_INVALID error `parse` throws for `value` (fails when it throws anything else or nothing). */
function refusal<T>(parse: (value: T) => unknown, value: T) {
  let thrown: unknown;
  try {
    parse(value);
  } catch (error) {
    thrown = error;
  }
  expect(isMediaAgentError(thrown, 'SCHEDULE_INVALID'), `refused: ${JSON.stringify(value)}`).toBe(true);
  const error = thrown as { message: string; details: Record<string, unknown> };
  return error;
}

describe('parseScheduleCreate', () => {
  it('passes a full cron schedule unchanged', () => {
    const body = {
      cron: '0 3 * * *',
      timezone: 'Europe/Berlin',
      goal: 'Check for stalled downloads',
      mode: 'plan_only',
      capabilityAllowlist: ['task.inspect', 'inventory.query'],
      budgets: {
        maxToolCalls: 10,
        maxDurationSec: 300,
        maxTokensPerRun: null,
        maxCostUsdPerRun: 0.25,
        maxModelCalls: 20,
        maxRunsPerDay: null,
        maxCostUsdPerDay: 1.5,
      },
      missed: 'catch_up_one',
      paused: true,
      owner: 'user:bob',
    };
    expect(parseScheduleCreate(structuredClone(body))).toEqual(body);
  });

  it('passes an interval schedule with only a goal', () => {
    expect(parseScheduleCreate({ everyMs: 3_600_000, goal: 'Tidy the queue' })).toEqual({
      everyMs: 3_600_000,
      goal: 'Tidy the queue',
    });
  });

  it('names every unknown field, and the fields a schedule has', () => {
    const error = refusal(parseScheduleCreate, { cron: '* * * * *', goal: 'g', clientKey: 'k', actor: 'user:x' });
    expect(error.details.unknownFields).toEqual(['clientKey', 'actor']);
    expect(error.details.allowed).toEqual(expect.arrayContaining(['cron', 'everyMs', 'goal', 'budgets', 'owner']));
    expect(error.message).toContain('clientKey, actor');
  });

  it('refuses an unknown budget', () => {
    const error = refusal(parseScheduleCreate, { cron: '* * * * *', goal: 'g', budgets: { maxRunsPerWeek: 3 } });
    expect(JSON.stringify(error.details.issues)).toContain('/budgets');
  });

  it.each([
    ['not an object', 'nightly'],
    ['an array', [{ cron: '* * * * *', goal: 'g' }]],
    ['null', null],
    ['no goal', { cron: '0 3 * * *' }],
    ['an empty goal', { cron: '0 3 * * *', goal: '' }],
    ['a goal that is a number', { cron: '0 3 * * *', goal: 7 }],
    ['neither cron nor everyMs', { goal: 'g' }],
    ['both cron and everyMs', { cron: '0 3 * * *', everyMs: 60_000, goal: 'g' }],
    ['an empty cron', { cron: '', goal: 'g' }],
    ['a fractional everyMs', { everyMs: 1.5, goal: 'g' }],
    ['everyMs 0', { everyMs: 0, goal: 'g' }],
    ['everyMs as a string', { everyMs: '60000', goal: 'g' }],
    ['an unknown mode', { cron: '0 3 * * *', goal: 'g', mode: 'yolo' }],
    ['an unknown missed policy', { cron: '0 3 * * *', goal: 'g', missed: 'catch_up_all' }],
    ['an allowlist that is a string', { cron: '0 3 * * *', goal: 'g', capabilityAllowlist: 'task.inspect' }],
    ['an allowlist with an empty id', { cron: '0 3 * * *', goal: 'g', capabilityAllowlist: [''] }],
    ['a negative budget', { cron: '0 3 * * *', goal: 'g', budgets: { maxRunsPerDay: -1 } }],
    ['a null budget that has no "none"', { cron: '0 3 * * *', goal: 'g', budgets: { maxToolCalls: null } }],
    ['paused as a string', { cron: '0 3 * * *', goal: 'g', paused: 'yes' }],
  ])('refuses %s', (_name, value) => {
    const error = refusal(parseScheduleCreate, value);
    expect(Array.isArray(error.details.issues) || Array.isArray(error.details.unknownFields)).toBe(true);
  });

  it('quotes the accepted values of a choice', () => {
    const error = refusal(parseScheduleCreate, { cron: '0 3 * * *', goal: 'g', missed: 'catch_up_all' });
    expect(error.details.issues).toEqual([
      { path: '/missed', message: "must be one of 'skip', 'catch_up_one'; got 'catch_up_all'" },
    ]);
  });

  it('is answered 422 with the code and its details', () => {
    let problem: ReturnType<typeof toProblem> | undefined;
    try {
      parseScheduleCreate({ goal: 'g', cron: '* * * * *', extra: 1 });
    } catch (error) {
      problem = toProblem(error);
    }
    expect(problem).toMatchObject({ status: 422, code: 'SCHEDULE_INVALID', details: { unknownFields: ['extra'] } });
  });
});

describe('parseScheduleUpdate', () => {
  it('passes any one field of the definition', () => {
    expect(parseScheduleUpdate({ goal: 'New goal' })).toEqual({ goal: 'New goal' });
    expect(parseScheduleUpdate({ everyMs: 120_000, missed: 'skip' })).toEqual({ everyMs: 120_000, missed: 'skip' });
    expect(parseScheduleUpdate({ budgets: { maxCostUsdPerDay: null } })).toEqual({
      budgets: { maxCostUsdPerDay: null },
    });
  });

  it.each([
    ['an empty change', {}],
    ['owner (never changes)', { owner: 'user:eve' }],
    ['paused (its own route)', { paused: true }],
    ['status', { status: 'paused' }],
    ['both cron and everyMs', { cron: '0 3 * * *', everyMs: 60_000 }],
    ['a wrong type', { timezone: 2 }],
    ['not an object', 'x'],
  ])('refuses %s', (_name, value) => {
    refusal(parseScheduleUpdate, value);
  });

  it('names the fields it may change when nothing is named', () => {
    expect(refusal(parseScheduleUpdate, {}).details.allowed).toEqual([
      'cron',
      'everyMs',
      'timezone',
      'goal',
      'mode',
      'capabilityAllowlist',
      'budgets',
      'missed',
    ]);
  });
});

describe('parseIdempotencyKey', () => {
  it('is absent without the header', () => {
    expect(parseIdempotencyKey(undefined)).toBeUndefined();
    expect(parseIdempotencyKey(null)).toBeUndefined();
  });
  it('keeps a key, trimmed', () => {
    expect(parseIdempotencyKey(' 8e03978e-40d5-43e8-bc93-6894a57f9324 ')).toBe('8e03978e-40d5-43e8-bc93-6894a57f9324');
    expect(parseIdempotencyKey('k'.repeat(IDEMPOTENCY_KEY_MAX))).toHaveLength(IDEMPOTENCY_KEY_MAX);
  });
  it('refuses an empty key and one too long', () => {
    expect(refusal(parseIdempotencyKey, '  ').details).toEqual({ header: 'Idempotency-Key', length: 0 });
    expect(refusal(parseIdempotencyKey, 'k'.repeat(IDEMPOTENCY_KEY_MAX + 1)).details.length).toBe(
      IDEMPOTENCY_KEY_MAX + 1,
    );
  });
});

describe('schedule problem statuses', () => {
  it.each([
    ['SCHEDULE_INVALID', 422],
    ['SCHEDULE_KEY_REUSED', 409],
    ['SCHEDULE_CAPABILITY_FORBIDDEN', 403],
    ['SCHEDULE_NOT_FOUND', 404],
    ['SCHEDULE_CONFLICT', 409],
  ])('%s → %i', (code, status) => expect(problemStatus(code)).toBe(status));
});
