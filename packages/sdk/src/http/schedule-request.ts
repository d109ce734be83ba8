// The bodies of the schedule routes (docs/http.md#schedules): their shape checked before the host sees them.
// Pure: reads only its arguments. What a value means (a cron expression, a time zone, an interval's minimum, a
// capability the owner may call) is the host's to check (`host.schedules`); this refuses what is not even shaped
// like a schedule, and every field it does not know.
import Type, { type TSchema } from 'typebox';
import { schemaIssues, type SchemaIssue } from '../core/schema-issues';
import { MediaAgentError } from '../core/errors';
import type { CreateScheduleInput, UpdateScheduleInput } from '../runtime/schedules/schedule-types';
import { compiled } from './body';

/**
 * The body of `POST /api/schedules`: a {@link CreateScheduleInput} without `actor` (the authenticated caller) and
 * `clientKey` (the `Idempotency-Key` header).
 * @internal
 */
export type ScheduleCreateRequest = Omit<CreateScheduleInput, 'actor' | 'clientKey'>;

/** The longest `Idempotency-Key` accepted, in characters (the host's limit of a schedule's client key). @internal */
export const IDEMPOTENCY_KEY_MAX = 200;

const Count = Type.Integer({ minimum: 0 });
const Usd = Type.Number({ minimum: 0 });
const Budgets = Type.Object(
  {
    maxToolCalls: Type.Optional(Count),
    maxDurationSec: Type.Optional(Count),
    maxTokensPerRun: Type.Optional(Type.Union([Count, Type.Null()])),
    maxCostUsdPerRun: Type.Optional(Type.Union([Usd, Type.Null()])),
    maxModelCalls: Type.Optional(Count),
    maxRunsPerDay: Type.Optional(Type.Union([Count, Type.Null()])),
    maxCostUsdPerDay: Type.Optional(Type.Union([Usd, Type.Null()])),
  },
  { additionalProperties: false },
);
const Definition = {
  cron: Type.Optional(Type.String({ minLength: 1 })),
  everyMs: Type.Optional(Type.Integer({ minimum: 1 })),
  timezone: Type.Optional(Type.String({ minLength: 1 })),
  goal: Type.Optional(Type.String({ minLength: 1 })),
  mode: Type.Optional(Type.Union([Type.Literal('execute'), Type.Literal('plan_only')])),
  capabilityAllowlist: Type.Optional(Type.Union([Type.Array(Type.String({ minLength: 1 })), Type.Null()])),
  budgets: Type.Optional(Budgets),
  missed: Type.Optional(Type.Union([Type.Literal('skip'), Type.Literal('catch_up_one')])),
};
const CreateBody = Type.Object(
  {
    ...Definition,
    goal: Type.String({ minLength: 1 }),
    owner: Type.Optional(Type.String({ minLength: 1 })),
    paused: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);
const UpdateBody = Type.Object(Definition, { additionalProperties: false });

/** The fields each body knows: any other is named in the error. */
const CREATE_FIELDS = Object.keys(CreateBody.properties);
const UPDATE_FIELDS = Object.keys(UpdateBody.properties);

function invalid(message: string, details: Record<string, unknown>): MediaAgentError {
  return new MediaAgentError('SCHEDULE_INVALID', message, details);
}

/** Checks `value` against `schema`: an object, no field outside `fields`, then the schema's shape. */
function check(value: unknown, schema: TSchema, fields: readonly string[], what: string): void {
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw invalid(`${what} must be a JSON object`, { issues: [{ path: '', message: 'must be object' }] });
  const unknownFields = Object.keys(value).filter((k) => !fields.includes(k));
  if (unknownFields.length > 0)
    throw invalid(`${what} has fields a schedule does not have: ${unknownFields.slice(0, 10).join(', ')}`, {
      unknownFields: unknownFields.slice(0, 10),
      allowed: fields,
    });
  const checker = compiled(schema);
  if (!checker.Check(value)) {
    const issues: SchemaIssue[] = schemaIssues(checker.Errors(value), value).slice(0, 10);
    throw invalid(`${what} is not a valid schedule: ${issues.map((i) => `${i.path || '/'} ${i.message}`).join('; ')}`, {
      issues,
    });
  }
}

/**
 * Parses the body of `POST /api/schedules`: a JSON object with `goal` and exactly one of `cron` (a non-empty string)
 * and `everyMs` (a positive integer, ms); optional `timezone`, `mode` (`execute` | `plan_only`),
 * `capabilityAllowlist` (capability ids), `budgets` (non-negative numbers: `maxToolCalls`, `maxDurationSec`,
 * `maxTokensPerRun`, `maxCostUsdPerRun`, `maxModelCalls`, `maxRunsPerDay`, `maxCostUsdPerDay`; the last four may be
 * null), `missed` (`skip` | `catch_up_one`), `paused` and `owner`. The host checks what the values mean.
 * @param value - the parsed JSON body
 * @returns the request, with only the fields given
 * @throws a `MediaAgentError` `SCHEDULE_INVALID` (422) for anything else — a field it does not know
 *   (`details.unknownFields`), a wrong type or value (`details.issues`: at most 10, each a JSON pointer and a message),
 *   neither or both of `cron` and `everyMs`
 * @internal
 */
export function parseScheduleCreate(value: unknown): ScheduleCreateRequest {
  check(value, CreateBody, CREATE_FIELDS, 'the schedule');
  const body = value as ScheduleCreateRequest;
  if ((body.cron === undefined) === (body.everyMs === undefined))
    throw invalid('a schedule needs exactly one of cron and everyMs', {
      issues: [{ path: '', message: 'must have exactly one of cron, everyMs' }],
    });
  return body;
}

/**
 * Parses the body of `PATCH /api/schedules/:id`: any of the definition's fields as in {@link parseScheduleCreate}
 * (`cron`, `everyMs`, `timezone`, `goal`, `mode`, `capabilityAllowlist`, `budgets`, `missed`), at least one, and at
 * most one of `cron` and `everyMs`. `owner`, `paused` and the client key never change here (pause and resume have
 * their own routes).
 * @param value - the parsed JSON body
 * @returns the change, with only the fields given
 * @throws a `MediaAgentError` `SCHEDULE_INVALID` (422), as {@link parseScheduleCreate}, and for an empty change
 * @internal
 */
export function parseScheduleUpdate(value: unknown): UpdateScheduleInput {
  check(value, UpdateBody, UPDATE_FIELDS, 'the change');
  const body = value as UpdateScheduleInput;
  if (Object.keys(body).length === 0)
    throw invalid(`the change names no field to change (one of ${UPDATE_FIELDS.join(', ')})`, {
      allowed: UPDATE_FIELDS,
    });
  if (body.cron !== undefined && body.everyMs !== undefined)
    throw invalid('a schedule has one of cron and everyMs, not both', {
      issues: [{ path: '', message: 'must have at most one of cron, everyMs' }],
    });
  return body;
}

/**
 * Reads the `Idempotency-Key` header of `POST /api/schedules`, which becomes the schedule's client key: creating
 * again with the same key returns the first schedule.
 * @param raw - the header's value (absent: null or undefined)
 * @returns the key, or undefined when the header is absent
 * @throws a `MediaAgentError` `SCHEDULE_INVALID` (422) for an empty key, or one longer than
 *   {@link IDEMPOTENCY_KEY_MAX} characters
 * @internal
 */
export function parseIdempotencyKey(raw: string | null | undefined): string | undefined {
  if (raw === undefined || raw === null) return undefined;
  const key = raw.trim();
  if (key.length === 0 || key.length > IDEMPOTENCY_KEY_MAX)
    throw invalid(`the Idempotency-Key header must have 1 to ${IDEMPOTENCY_KEY_MAX} characters`, {
      header: 'Idempotency-Key',
      length: key.length,
    });
  return key;
}
