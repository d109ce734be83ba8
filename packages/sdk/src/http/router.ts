import { AUTHENTICATE_TIMEOUT_MS, answerWithin } from '../core/deadline';
import { Hono, type Context } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { LRUCache } from 'lru-cache';
import Type from 'typebox';
import { type Actor, isHumanActor, parseActor } from '../core/actor';
import { isMediaAgentError, MediaAgentError } from '../core/errors';
import { linkedSignal } from '../core/linked-signal';
import { AdministrationForbiddenError, RecordNotFoundError } from '../authorization/errors';
import type { ApprovalRecord, GrantRecord, JsonValue } from '../core/records';
import type { DecisionRecord } from '../core/run-records';
import type { AgentHost } from '../runtime/agent-host';
import { CapabilityNotFoundError } from '../capabilities/errors';
import { capabilityVisibleTo, visibleCapabilities } from '../capabilities/visible-capabilities';
import type { RunEvent } from '../runtime/events/run-event';
import { approvalRunId } from './access';
import { readBody } from './body';
import type { RouterContext, RouterVars } from './context';
import { loadConsoleAssets, type ConsoleAsset } from './console-assets';
import { hostDecisions, type HttpDecisionSource } from './decisions';
import { addForkRoutes } from './forks';
import { HttpRequestError, problemResponse } from './problem';
import { addReplayRoutes } from './replay';
import { parseChoice, parseLimit, parseSequence } from './query';
import { addScheduleRoutes } from './schedules';
import { addUndoRoutes } from './undo';
import { eventStream } from './sse';

/**
 * The host's authentication hook: turns a request (its cookie session, API key or bearer token) into an
 * actor such as `user:alice` or `apikey:ci`. Return nothing (or throw) to refuse the request with 401
 * `HTTP_UNAUTHENTICATED` (so does a hook that has not answered within `AUTHENTICATE_TIMEOUT_MS`, 10 000 ms).
 * The SDK never invents an identity: every actor comes from this hook.
 * @public
 */
export type HttpAuthenticate = (request: Request) => string | undefined | null | Promise<string | undefined | null>;

/**
 * Options of {@link createAgentRouter}. Every byte and millisecond option is a positive integer
 * (`OPTIONS_INVALID` otherwise, when the router is made).
 * @public
 */
export interface AgentRouterOptions {
  /** Resolves the actor of each request (required). */
  authenticate: HttpAuthenticate;
  /** Largest request body accepted, in bytes (default 65 536); larger ones get 413 `HTTP_BODY_TOO_LARGE`. */
  maxBodyBytes?: number;
  /** Interval of SSE heartbeat comments, in ms (default 15 000). */
  heartbeatMs?: number;
  /** Bytes an SSE client may have queued before it counts as slow (default 262 144). */
  streamBufferBytes?: number;
  /** How long a slow SSE client's queue may stay full before it is disconnected, in ms (default 10 000). */
  slowClientMs?: number;
  /** The reconnection delay advertised to browsers (`retry:`), in ms (default 1 000). */
  retryMs?: number;
  /** How often an SSE stream checks storage for events written by other processes, in ms (default 1 000). */
  pollMs?: number;
  /** Where decisions are read and chosen (default {@link hostDecisions}: the host's budget decisions). */
  decisions?: HttpDecisionSource;
  /**
   * The folder of the web console's static files, served at the router's root; `false` serves no console
   * (the entry point `@media-agent/sdk/http` passes the files shipped with the package).
   */
  consoleDir?: string | false;
  /**
   * A path prefix the router's routes live under (e.g. `/agent`), for servers that hand it the full URL
   * (Fastify, a bare Node server sharing its port). Default: none (mount it where prefixes are stripped:
   * Express `app.use('/agent', …)`, Hono `app.mount('/agent', router.fetch)`).
   */
  basePath?: string;
}

/**
 * The HTTP surface of an agent host: a web-standard handler (`Request` → `Response`).
 * @public
 */
export interface AgentRouter {
  /** Handles one request (mount it with `toNodeListener`, or in any framework that speaks `Request`/`Response`). */
  fetch(request: Request): Promise<Response>;
  /** Event streams open right now. */
  readonly openStreams: number;
  /** Ends every open event stream cleanly (done by itself when the host stops); later requests are served as usual. */
  closeStreams(): void;
}

type Vars = RouterVars;
type C = RouterContext;

const StartRunBody = Type.Object(
  {
    goal: Type.String(),
    mode: Type.Optional(Type.Union([Type.Literal('execute'), Type.Literal('plan_only')])),
    capabilityAllowlist: Type.Optional(Type.Array(Type.String())),
    sessionId: Type.Optional(Type.String()),
  },
  { additionalProperties: false },
);
const MessageBody = Type.Object({ text: Type.String() }, { additionalProperties: false });
const AbortBody = Type.Object(
  { reason: Type.Optional(Type.String({ maxLength: 1000 })) },
  { additionalProperties: false },
);
const DecideBody = Type.Object(
  {
    status: Type.Union([Type.Literal('approved'), Type.Literal('rejected')]),
    payloadHash: Type.Optional(Type.String()),
    // Approve only these steps of the plan (ids from `approval.steps`).
    steps: Type.Optional(Type.Array(Type.String({ maxLength: 128 }), { minItems: 1, maxItems: 1000 })),
    // Approve an edited payload instead (the whole payload; `capabilityId`, when given, must be the approval's).
    edits: Type.Optional(
      Type.Object(
        { payload: Type.Unknown(), capabilityId: Type.Optional(Type.String({ maxLength: 200 })) },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);
// A dry run of one capability call: its impact and the authorization verdict, nothing run (docs/http.md#dry-runs).
const InvokeBody = Type.Object(
  { input: Type.Unknown(), dryRun: Type.Literal(true), approvalId: Type.Optional(Type.String({ maxLength: 200 })) },
  { additionalProperties: false },
);
const Strings = Type.Optional(Type.Array(Type.String()));
const GrantCreateBody = Type.Object(
  {
    action: Type.String(),
    expiresAt: Type.Optional(Type.Integer()),
    policyRevisionId: Type.Optional(Type.String()),
    scope: Type.Optional(
      Type.Object(
        { mediaEntityIds: Strings, mediaKinds: Strings, capabilities: Strings },
        { additionalProperties: false },
      ),
    ),
    budget: Type.Optional(
      Type.Object(
        { maxInvocationsPerDay: Type.Optional(Type.Number()), maxBytesPerDay: Type.Optional(Type.Number()) },
        { additionalProperties: false },
      ),
    ),
    reason: Type.Optional(Type.String()),
    allowUnmatched: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);
const GrantPatchBody = Type.Object(
  { status: Type.Optional(Type.Literal('revoked')), expiresAt: Type.Optional(Type.Integer()) },
  { additionalProperties: false },
);
const ChooseBody = Type.Object(
  { option: Type.String(), note: Type.Optional(Type.String({ maxLength: 2000 })) },
  { additionalProperties: false },
);
const NoteBody = Type.Object(
  { note: Type.Optional(Type.String({ maxLength: 2000 })) },
  { additionalProperties: false },
);
const DECISION_STATUSES = ['open', 'awaiting_user', 'resolved', 'dismissed'] as const;

const RUN_STATUSES = ['queued', 'running', 'waiting', 'succeeded', 'failed', 'cancelled', 'budget_exceeded'] as const;
const APPROVAL_STATUSES = ['requested', 'approved', 'rejected', 'revoked', 'consumed'] as const;

/** The numeric options (bytes and milliseconds): positive integers, or a 0 ms heartbeat would flood a stream. */
const LIMIT_OPTIONS = [
  'maxBodyBytes',
  'heartbeatMs',
  'streamBufferBytes',
  'slowClientMs',
  'retryMs',
  'pollMs',
] as const satisfies readonly (keyof AgentRouterOptions)[];

/**
 * Creates the HTTP surface of an agent host: the runs API, the global event stream (SSE and JSON pages),
 * approvals, grants and decisions, errors as `application/problem+json` with the SDK's stable `code`,
 * and (unless `consoleDir` is `false`) the web console at the router's root.
 *
 * Routes (below wherever it is mounted): `POST /api/runs`, `GET /api/runs`, `GET /api/runs/:id?afterSeq&limit`,
 * `POST /api/runs/:id/messages`, `POST /api/runs/:id/abort`, `GET /api/runs/:id/fork-points`,
 * `POST /api/runs/:id/fork` (`{ atSeq, model?, goal? }`: 201 `{ run }`, the fork), `POST /api/runs/:id/undo` (undoes the
 * conversation's last turn: 201 `{ run, forkedAt, undoneMessage, originalCancelled }`), `POST /api/runs/:id/replay`
 * (`{ timeoutMs? }`: 200 the `RunReplayReport`, nothing real run), `GET /api/events?after&limit&runId` (SSE when the
 * request accepts `text/event-stream`, honouring `Last-Event-ID`; JSON pages otherwise),
 * `GET /api/approvals`, `GET /api/approvals/:id` (each approval with its impact, steps and proposed / approved / executed
 * payloads), `PATCH /api/approvals/:id` (`{ status, payloadHash, steps?, edits? }`: approve some steps, or an edited
 * payload), `POST /api/capabilities/:id/invoke` (`{ input, dryRun: true }`: a dry run as the caller, answering the
 * `InvocationDryRun`), `GET|POST /api/grants`,
 * `PATCH /api/grants/:id`, `GET /api/decisions`, `GET /api/decisions/:id`, `POST /api/decisions/:id/choice`,
 * `POST /api/decisions/:id/dismiss`, `GET /api/memory/proposals[/:id]`, `POST /api/memory/proposals/:id/approve|discard`,
 * `GET /api/capabilities` (the capabilities the caller's role may call: admin-only ones only for an administrator),
 * `GET|POST /api/schedules`, `GET|PATCH|DELETE /api/schedules/:id`, `POST /api/schedules/:id/pause|resume`,
 * `GET /api/schedules/:id/ticks` (each a `ScheduleView`; the `Idempotency-Key` header of a create is its client key),
 * `POST /api/undo` (`{ invocationId }` or `{ runId }`, undone as the caller: docs/approvals.md#undo).
 * See docs/http.md.
 *
 * Access: every request is authenticated by `options.authenticate` (401 otherwise). An admin sees every
 * run; anyone else sees only the runs they started — another user's run answers 404 `RUN_NOT_FOUND`,
 * exactly like a run that does not exist. Deciding approvals and managing grants need an admin (403
 * `ADMIN_FORBIDDEN`). Schedules likewise: a non-admin sees and manages only their own (another's answers 404
 * `SCHEDULE_NOT_FOUND`). Every body is checked before anything is written. An open event stream re-checks its
 * subscriber every `accessRecheckMs` (default 30 000 ms; `authenticate` is run again on the stream's request)
 * and at once on `host.identityChanged`; one that lost access ends with an `access_lost` frame. Open streams and
 * runs started per minute are limited per actor and in total (`createAgentHost({ limits })`): 429
 * `STREAM_LIMIT_REACHED` / `RUN_START_RATE_LIMITED` with `Retry-After` (docs/http.md#limits).
 * @param host - a started agent host
 * @param options - the authentication hook and limits
 * @throws `OPTIONS_INVALID` ({@link MediaAgentError}) without an `authenticate` function, for a byte or millisecond
 * option that is not a positive integer, a `consoleDir` without the console's files, or a malformed `basePath`
 * @internal
 */
export function createAgentRouter(host: AgentHost, options: AgentRouterOptions): AgentRouter {
  if (typeof options?.authenticate !== 'function')
    throw new MediaAgentError('OPTIONS_INVALID', 'createAgentRouter needs an authenticate function');
  for (const option of LIMIT_OPTIONS) {
    const value = options[option];
    if (value !== undefined && !(Number.isSafeInteger(value) && value > 0))
      throw new MediaAgentError('OPTIONS_INVALID', `createAgentRouter option ${option} must be a positive integer`, {
        option,
        value: String(value),
      });
  }
  const maxBodyBytes = options.maxBodyBytes ?? 65_536;
  const decisions = options.decisions ?? hostDecisions(host);
  let assets: Map<string, ConsoleAsset> | undefined;
  try {
    assets = options.consoleDir ? loadConsoleAssets(options.consoleDir) : undefined;
  } catch (error) {
    throw new MediaAgentError(
      'OPTIONS_INVALID',
      `consoleDir ${options.consoleDir} does not hold the console's files`,
      { option: 'consoleDir' },
      { cause: error },
    );
  }
  let closer = new AbortController();
  let openStreams = 0;
  /** Whether an actor may see a run, as the host decides it (owner or admin), remembered for a minute. */
  const access = new LRUCache<string, boolean>({ max: 10_000, ttl: 60_000 });

  const maySee = async (c: C, runId: string): Promise<boolean> => {
    if (c.var.role === 'admin') return true;
    const key = `${c.var.actor}\n${runId}`;
    const known = access.get(key);
    if (known !== undefined) return known;
    const visible = await host.getRun(runId, { limit: 1, actor: c.var.actor }).then(
      () => true,
      (error: unknown) => {
        if (isMediaAgentError(error, 'RUN_NOT_FOUND')) return false;
        throw error;
      },
    );
    access.set(key, visible);
    return visible;
  };
  /** The run if the caller may see it; the host answers RUN_NOT_FOUND otherwise (existence never revealed). */
  const visibleRun = (c: C, id: string, page?: { afterSeq?: number; limit?: number }) =>
    host.getRun(id, { ...(page ?? { limit: 1 }), actor: c.var.actor });
  /** Whether the caller may see a schedule (its owner or an administrator, as the host decides), remembered for a minute. */
  const scheduleReadable = async (c: C, scheduleId: string): Promise<boolean> => {
    const key = `${c.var.actor}\nschedule\n${scheduleId}`;
    const known = access.get(key);
    if (known !== undefined) return known;
    const visible = await host.schedules.get(scheduleId, c.var.actor).then(
      () => true,
      (error: unknown) => {
        if (isMediaAgentError(error, 'SCHEDULE_NOT_FOUND')) return false;
        throw error;
      },
    );
    access.set(key, visible);
    return visible;
  };
  /**
   * Whether the caller may read an event stream: a run's (see `maySee`) or a schedule's, named by the schedule id
   * (its `schedule.skipped` events and decisions about it), which its owner and administrators read — the host's
   * rule for `host.events({ actor })`.
   */
  const streamReadable = async (c: C, streamId: string): Promise<boolean> =>
    (await maySee(c, streamId)) || (await scheduleReadable(c, streamId));
  /** Refuses a `?runId=` the caller may not read, with the run's RUN_NOT_FOUND (existence never revealed). */
  const requireReadableStream = async (c: C, streamId: string): Promise<void> => {
    try {
      await visibleRun(c, streamId);
    } catch (error) {
      if (!isMediaAgentError(error, 'RUN_NOT_FOUND') || !(await scheduleReadable(c, streamId))) throw error;
    }
  };
  const approvalVisible = async (c: C, approval: ApprovalRecord): Promise<boolean> => {
    if (c.var.role === 'admin' || approval.requestedBy === c.var.actor) return true;
    const runId = approvalRunId(approval.requestedBy);
    return runId !== undefined && (await maySee(c, runId));
  };
  const requireAdmin = (c: C, what: string) => {
    if (c.var.role !== 'admin') throw new AdministrationForbiddenError(c.var.actor, what);
  };

  const app = new Hono<Vars>();
  app.onError((error) => problemResponse(error));
  const notFound = (c: Context) =>
    problemResponse(new HttpRequestError('HTTP_ROUTE_NOT_FOUND', `no route for ${c.req.method} ${c.req.path}`));
  app.notFound(notFound);

  // The console: static files held in memory, with validators.
  if (assets)
    for (const [path, asset] of assets)
      app.get(path, (c) => {
        const headers = {
          'content-type': asset.contentType,
          etag: asset.etag,
          'cache-control': 'no-cache',
          'x-content-type-options': 'nosniff',
          ...asset.headers,
        };
        if (c.req.header('if-none-match') === asset.etag) return new Response(null, { status: 304, headers });
        return new Response(asset.body, { headers });
      });

  app.use('/api/*', async (c, next) => {
    let actor: string | undefined | null;
    try {
      actor = await answerWithin(options.authenticate(c.req.raw), AUTHENTICATE_TIMEOUT_MS);
      if (actor) parseActor(actor);
    } catch {
      actor = undefined;
    }
    if (!actor) throw new HttpRequestError('HTTP_UNAUTHENTICATED', 'the request is not authenticated');
    c.set('actor', actor);
    // Administration is for people whose role is admin (never an API key or a job, whatever it resolves to).
    c.set('role', isHumanActor(actor) && (await host.roleOf(actor)) === 'admin' ? 'admin' : 'user');
    c.header('cache-control', 'no-store');
    await next();
  });
  app.use(
    '/api/*',
    bodyLimit({
      maxSize: maxBodyBytes,
      onError: () => {
        throw new HttpRequestError('HTTP_BODY_TOO_LARGE', `the request body is larger than ${maxBodyBytes} bytes`, {
          maxBodyBytes,
        });
      },
    }),
  );

  // Runs.
  app.post('/api/runs', async (c) => {
    const body = await readBody(c, StartRunBody);
    const run = await host.startRun({ ...body, actor: c.var.actor });
    return c.json({ run }, 201);
  });
  app.get('/api/runs', async (c) => {
    const status = parseChoice('status', c.req.query('status'), RUN_STATUSES);
    const limit = parseLimit(c.req.query('limit'), 1000);
    const runs = await host.listRuns({
      ...(status ? { status } : {}),
      ...(limit ? { limit } : {}),
      actor: c.var.actor,
    });
    return c.json({ runs });
  });
  app.get('/api/runs/:id', async (c) => {
    const afterSeq = parseSequence('afterSeq', c.req.query('afterSeq'));
    const limit = parseLimit(c.req.query('limit'), 1000);
    const detail = await visibleRun(c, c.req.param('id'), {
      ...(afterSeq !== undefined ? { afterSeq } : {}),
      ...(limit !== undefined ? { limit } : {}),
    });
    return c.json(detail);
  });
  app.post('/api/runs/:id/messages', async (c) => {
    const body = await readBody(c, MessageBody);
    const message = await host.appendToInbox(c.req.param('id'), body.text, { actor: c.var.actor });
    return c.json({ message }, 202);
  });
  app.post('/api/runs/:id/abort', async (c) => {
    const body = await readBody(c, AbortBody, true);
    const run = await host.abort(c.req.param('id'), body.reason, { actor: c.var.actor });
    return c.json({ run }, 202);
  });
  // Fork points, forks and undoing a conversation's last turn (docs/http.md#forks-and-undo), as the caller.
  addForkRoutes(app, host);
  // A replay of a stored run without side effects (docs/http.md#replay), as the caller.
  addReplayRoutes(app, host);

  // The global event stream.
  app.get('/api/events', async (c) => {
    const fromQuery = parseSequence('after', c.req.query('after'));
    const limit = parseLimit(c.req.query('limit'), 1000);
    const runId = c.req.query('runId');
    if (runId !== undefined) await requireReadableStream(c, runId);
    // The JSON page is filtered here; the stream is filtered by the host (`events({ actor })`).
    const visible = async (event: RunEvent) =>
      (runId === undefined || event.runId === runId) && (await streamReadable(c, event.runId));
    const wantsStream = (c.req.header('accept') ?? '').includes('text/event-stream');
    if (!wantsStream) {
      const page = await host.listEvents({ after: fromQuery ?? 0, limit: limit ?? 100 });
      const events: RunEvent[] = [];
      for (const e of page) if (await visible(e)) events.push(e);
      return c.json({ events, next: page.at(-1)?.globalSeq ?? fromQuery ?? 0, more: page.length === (limit ?? 100) });
    }
    const after = parseSequence('Last-Event-ID', c.req.header('last-event-id')) ?? fromQuery ?? 0;
    // Refuse a stopped host with a problem response rather than an empty stream.
    await host.listEvents({ after, limit: 1 });
    const { actor } = c.var;
    const request = c.req.raw;
    // The stream stays subject to access: at each re-check the request is authenticated again (a signed-out
    // token no longer resolves) and the host re-checks the actor's role (docs/http.md#access-while-the-stream-is-open).
    const reauthenticate = async () => {
      try {
        return (await answerWithin(options.authenticate(request), AUTHENTICATE_TIMEOUT_MS)) === actor;
      } catch {
        return false;
      }
    };
    const ended = new AbortController();
    // Takes one of the actor's stream slots now: over a limit this throws STREAM_LIMIT_REACHED (429) before
    // anything is sent; the slot is given back when the subscription ends or `ended` aborts.
    const events = host.events({
      after,
      signal: ended.signal,
      actor,
      reauthenticate,
      pollMs: options.pollMs ?? 1000,
      ...(runId ? { runId, follow: true } : {}),
    });
    openStreams++;
    // Ends the stream when the router closes streams or the host stops; detached from both when it ended (made after
    // `host.events` took its slot: a refused request attaches nothing).
    const stop = linkedSignal([closer.signal, host.stopSignal]);
    const body = eventStream({
      source: (signal) => {
        if (signal.aborted) ended.abort();
        else signal.addEventListener('abort', () => ended.abort(), { once: true });
        return events;
      },
      visible: (event) => runId === undefined || event.runId === runId,
      stop: stop.signal,
      heartbeatMs: options.heartbeatMs ?? 15_000,
      bufferBytes: options.streamBufferBytes ?? 262_144,
      slowClientMs: options.slowClientMs ?? 10_000,
      retryMs: options.retryMs ?? 1000,
      onEnd: () => {
        openStreams--;
        stop.dispose();
        ended.abort();
      },
    });
    return new Response(body, {
      headers: {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-store',
        'x-accel-buffering': 'no',
      },
    });
  });

  // Capabilities: what the caller's role may call (an admin-only capability only to an administrator).
  app.get('/api/capabilities', (c) =>
    c.json({
      capabilities: visibleCapabilities(host.capabilities.list(), c.var.role).map((d) => ({
        id: d.id,
        version: d.version,
        title: d.title,
        description: d.description,
        kind: d.kind,
        adminOnly: d.adminOnly === true,
      })),
    }),
  );

  // A dry run as the caller: the impact and whether the call would be authorized now; nothing runs, nothing is
  // claimed or consumed. A capability the caller's role is not shown answers 404, as if it did not exist.
  app.post('/api/capabilities/:id/invoke', async (c) => {
    const body = await readBody(c, InvokeBody);
    const id = c.req.param('id');
    if (!host.capabilities.has(id) || !capabilityVisibleTo(host.capabilities.get(id), c.var.role))
      throw new CapabilityNotFoundError(id);
    const result = await host.invoke(id, body.input, {
      actor: c.var.actor as Actor, // checked by parseActor when the request was authenticated
      dryRun: true,
      ...(body.approvalId !== undefined ? { approvalId: body.approvalId } : {}),
    });
    return c.json(result);
  });

  // Approvals.
  app.get('/api/approvals', async (c) => {
    const status = parseChoice('status', c.req.query('status'), APPROVAL_STATUSES);
    const all = await host.approvals.list(status ? { status } : {});
    const approvals: ApprovalRecord[] = [];
    for (const a of all) if (await approvalVisible(c, a)) approvals.push(a);
    return c.json({ approvals });
  });
  const visibleApproval = async (c: C, id: string) => {
    const approval = await host.approvals.get(id);
    if (!(await approvalVisible(c, approval))) throw new RecordNotFoundError('approval', id);
    return approval;
  };
  app.get('/api/approvals/:id', async (c) => {
    const approval = await visibleApproval(c, c.req.param('id'));
    const plan = await host.plans.get(approval.planId);
    return c.json({ approval, plan });
  });
  app.patch('/api/approvals/:id', async (c) => {
    const body = await readBody(c, DecideBody);
    await visibleApproval(c, c.req.param('id'));
    requireAdmin(c, 'decide approvals');
    const approval = await host.approvals.decide(c.req.param('id'), {
      status: body.status,
      actor: c.var.actor,
      ...(body.payloadHash !== undefined ? { payloadHash: body.payloadHash } : {}),
      ...(body.steps !== undefined ? { steps: body.steps } : {}),
      ...(body.edits !== undefined
        ? {
            edits: {
              payload: body.edits.payload as JsonValue,
              ...(body.edits.capabilityId !== undefined ? { capabilityId: body.edits.capabilityId } : {}),
            },
          }
        : {}),
    });
    return c.json({ approval });
  });

  // Grants (administrators only).
  app.get('/api/grants', async (c) => {
    requireAdmin(c, 'list grants');
    const status = parseChoice('status', c.req.query('status'), ['active', 'revoked'] as const);
    const grants: GrantRecord[] = await host.grants.list(status ? { status } : {});
    return c.json({ grants });
  });
  app.post('/api/grants', async (c) => {
    const body = await readBody(c, GrantCreateBody);
    requireAdmin(c, 'create grants');
    const grant = await host.grants.create({ ...body, actor: c.var.actor });
    return c.json({ grant }, 201);
  });
  app.patch('/api/grants/:id', async (c) => {
    const body = await readBody(c, GrantPatchBody);
    requireAdmin(c, 'change grants');
    const grant = await host.grants.update(c.req.param('id'), { ...body, actor: c.var.actor });
    return c.json({ grant });
  });

  // Decisions (docs/decisions.md). A non-admin sees the decisions about runs and schedules they may see; the host decides
  // who may choose which option (an option that invokes a capability is authorized as the person choosing).
  const decisionVisible = async (c: C, d: DecisionRecord) =>
    c.var.role === 'admin' ||
    (d.subjectType === 'run' && (await maySee(c, d.subjectId))) ||
    (d.subjectType === 'schedule' && (await scheduleReadable(c, d.subjectId)));
  const visibleDecision = async (c: C, id: string) => {
    const decision = await decisions.get(id);
    if (!(await decisionVisible(c, decision)))
      throw new MediaAgentError('DECISION_NOT_FOUND', `no decision with id ${JSON.stringify(id)}`, { id });
    return decision;
  };
  app.get('/api/decisions', async (c) => {
    const status = parseChoice('status', c.req.query('status'), DECISION_STATUSES);
    const all = await decisions.list(status ? { status } : {});
    const visible: DecisionRecord[] = [];
    for (const d of all) if (await decisionVisible(c, d)) visible.push(d);
    return c.json({ decisions: visible });
  });
  app.get('/api/decisions/:id', async (c) => c.json({ decision: await visibleDecision(c, c.req.param('id')) }));
  app.post('/api/decisions/:id/choice', async (c) => {
    const body = await readBody(c, ChooseBody);
    await visibleDecision(c, c.req.param('id'));
    const choice = await decisions.choose(c.req.param('id'), body.option, c.var.actor, body.note);
    return c.json(choice);
  });
  app.post('/api/decisions/:id/dismiss', async (c) => {
    const body = await readBody(c, NoteBody, true);
    await visibleDecision(c, c.req.param('id'));
    const decision = await decisions.dismiss(c.req.param('id'), c.var.actor, body.note);
    return c.json({ decision });
  });

  // Schedules (docs/schedules.md): host.schedules as the caller.
  addScheduleRoutes(app, host);
  // Undo (docs/approvals.md#undo): host.undo as the caller.
  addUndoRoutes(app, host);

  // Memory proposals (docs/memory.md): each person's own pending proposals, when the host configured memory.
  const memory = () => {
    if (!host.memory) throw new HttpRequestError('HTTP_ROUTE_NOT_FOUND', 'this host keeps no memory');
    return host.memory;
  };
  app.get('/api/memory/proposals', async (c) => c.json({ proposals: await memory().listProposals(c.var.actor) }));
  app.get('/api/memory/proposals/:id', async (c) =>
    c.json({ proposal: await memory().showProposal(c.var.actor, c.req.param('id')) }),
  );
  app.post('/api/memory/proposals/:id/approve', async (c) => {
    await readBody(c, NoteBody, true);
    return c.json(await memory().approveProposal(c.var.actor, c.req.param('id')));
  });
  app.post('/api/memory/proposals/:id/discard', async (c) => {
    await readBody(c, NoteBody, true);
    await memory().discardProposal(c.var.actor, c.req.param('id'));
    return c.json({ discarded: c.req.param('id') });
  });

  let served: Hono<Vars> = app;
  if (options.basePath) {
    if (!/^\/[A-Za-z0-9._~\-/]*[^/]$/.test(options.basePath))
      throw new MediaAgentError('OPTIONS_INVALID', 'basePath must start with / and not end with /', {
        basePath: options.basePath,
      });
    served = new Hono<Vars>();
    served.mount(options.basePath, app.fetch);
    served.notFound(notFound);
  }
  return {
    fetch: async (request) => served.fetch(request),
    get openStreams() {
      return openStreams;
    },
    closeStreams: () => {
      closer.abort();
      closer = new AbortController();
    },
  };
}
