// `elicitation/create` from a consumed MCP server: shown to the person a call acts for through the host's handler,
// the answer completed with the schema's defaults and checked against the requested schema. An answer is input for
// the server, never authority: nothing of it reaches the invocation path's authorization.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';

/** A value of an elicitation answer: what a form field holds. @public */
export type McpElicitationValue = string | number | boolean | string[];

/**
 * A form a consumed MCP server asks a person to fill in during a tool call (`elicitation/create`, form mode).
 * @public
 */
export interface McpElicitationRequest {
  /** The server's registration name. */
  server: string;
  /** The server's message to the person (untrusted text: show it as the server's words). */
  message: string;
  /**
   * The form: a flat JSON Schema object whose properties are strings (optionally `enum`, `oneOf` of `const`,
   * `format`, `minLength`/`maxLength`), numbers or integers (`minimum`/`maximum`), booleans, or arrays of enum
   * strings, each optionally with a `default`; `required` lists the fields an answer must give.
   */
  requestedSchema: Readonly<Record<string, unknown>>;
}

/**
 * Whose tool call the form belongs to.
 * @public
 */
export interface McpElicitationContext {
  /** The capability called, `mcp.<server>.<tool>`. */
  capabilityId: string;
  /** The tool's name on the server. */
  tool: string;
  /** Who invoked the capability (`user:…`, `apikey:…`, `agent:<runId>`, `system:…`). */
  actor: string;
  /** The run the call belongs to, when any. */
  runId: string | undefined;
  /**
   * The person the call acts for — show the form to them: the `user:` who started the run (its top-level run for a
   * subagent) for a run's call, the invoking `user:` for a direct call; undefined when no person is behind the
   * call (an API key, a job, a run started by one).
   */
  owner: string | undefined;
  /**
   * Fired when the person's answer is no longer wanted: the tool call ended (done, cancelled by its caller, or
   * timed out — a call waits at most the registration's `callTimeoutMs`), or the server cancelled its request
   * (`notifications/cancelled`). Stop showing the form; whatever the handler returns after this is not used (the
   * server gets `cancel`, or nothing when it cancelled the request itself).
   */
  signal: AbortSignal;
}

/**
 * What the person answered: `accept` with the form's values (fields left out are filled from the schema's
 * defaults), `decline` (they refused), or `cancel` (they dismissed it without choosing).
 * @public
 */
export type McpElicitationAnswer =
  | { action: 'accept'; content?: Record<string, McpElicitationValue> }
  | { action: 'decline' }
  | { action: 'cancel' };

/**
 * Shows a consumed MCP server's form to the person a tool call acts for and returns their answer.
 *
 * @remarks
 * The handler is not awaited past `context.signal`: once the tool call ends (at the latest when it times out after
 * the registration's `callTimeoutMs`, 60 000 ms by default) or the server cancels the request, the form is answered
 * `cancel` at once and the handler's later answer is dropped — a handler that never returns holds nothing. A handler
 * that throws answers `cancel` too.
 *
 * The answer goes to the server only. It is never an approval or a grant: a server asking "approve?" and getting
 * `accept` changes nothing in the host's authorization — the call was authorized before it was sent, and later
 * calls need what they needed.
 * @public
 */
export type McpElicitationHandler = (
  request: McpElicitationRequest,
  context: McpElicitationContext,
) => McpElicitationAnswer | Promise<McpElicitationAnswer>;

/** A tool call in flight on a session, as an elicitation sees it. */
export interface McpCallInFlight {
  capabilityId: string;
  tool: string;
  actor: string;
  runId: string | undefined;
  signal: AbortSignal;
}

/** What the elicitation handler of one registration needs. */
export interface McpElicitationWiring {
  server: string;
  /** The host's handler; without it every form is declined. */
  handler: McpElicitationHandler | undefined;
  /** The tool calls in flight on the session now. */
  inFlight: () => readonly McpCallInFlight[];
  /** The person a call acts for. */
  owner: (call: McpCallInFlight) => Promise<string | undefined>;
}

/**
 * Answers `elicitation/create` on `client` (which must have been made declaring the `elicitation` capability): the
 * form is shown to the person the call in flight acts for, through the host's handler. Declined without asking
 * when no handler was given, when no tool call is in flight, or when several are (the MCP SDK does not say which
 * call a server request belongs to, and a form must not reach the wrong person). A handler that throws, or whose
 * call ends meanwhile (its signal, raced with the handler), or whose request the server cancels, answers `cancel`.
 * An accepted answer is completed with the schema's defaults and checked against it; an answer that does not fit is
 * sent as `decline`.
 */
export function answerElicitations(client: Pick<Client, 'setRequestHandler'>, wiring: McpElicitationWiring): void {
  client.setRequestHandler(ElicitRequestSchema, async (request, extra) => {
    const params = request.params as { mode?: string; message: string; requestedSchema?: Record<string, unknown> };
    const schema = params.requestedSchema ?? { type: 'object', properties: {} };
    const calls = wiring.inFlight();
    if (!wiring.handler || calls.length !== 1) return { action: 'decline' as const };
    const call = calls[0]!;
    // The call's end (which its callTimeoutMs bounds) or the server cancelling this request.
    const signal = AbortSignal.any([call.signal, extra.signal]);
    if (signal.aborted) return { action: 'cancel' as const };
    const handler = wiring.handler;
    let answer: McpElicitationAnswer;
    try {
      const context: McpElicitationContext = {
        capabilityId: call.capabilityId,
        tool: call.tool,
        actor: call.actor,
        runId: call.runId,
        owner: await wiring.owner(call),
        signal,
      };
      answer = await untilAborted(
        async () =>
          handler({ server: wiring.server, message: String(params.message ?? ''), requestedSchema: schema }, context),
        signal,
      );
    } catch {
      return { action: 'cancel' as const };
    }
    if (signal.aborted) return { action: 'cancel' as const };
    if (answer?.action === 'cancel') return { action: 'cancel' as const };
    if (answer?.action !== 'accept') return { action: 'decline' as const };
    const content = withElicitationDefaults(schema, answer.content ?? {});
    return elicitationProblems(schema, content).length === 0
      ? { action: 'accept' as const, content }
      : { action: 'decline' as const };
  });
}

/** What `run` settles with, or a rejection as soon as `signal` fires (its listener removed either way). */
function untilAborted<T>(run: () => Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const abort = () => reject(signal.reason);
    if (signal.aborted) return abort();
    signal.addEventListener('abort', abort, { once: true });
    run().then(
      (value) => {
        signal.removeEventListener('abort', abort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', abort);
        reject(error);
      },
    );
  });
}

type Property = Record<string, unknown>;

function properties(schema: Readonly<Record<string, unknown>>): Record<string, Property> {
  const p = schema.properties;
  return typeof p === 'object' && p !== null && !Array.isArray(p) ? (p as Record<string, Property>) : {};
}

/**
 * The answer with every field it leaves out that has a `default` in the schema filled with that default (a copy).
 * @param schema - the requested schema
 * @param content - the person's values
 */
export function withElicitationDefaults(
  schema: Readonly<Record<string, unknown>>,
  content: Readonly<Record<string, McpElicitationValue>>,
): Record<string, McpElicitationValue> {
  const out: Record<string, McpElicitationValue> = { ...content };
  for (const [name, property] of Object.entries(properties(schema)))
    if (!Object.hasOwn(out, name) && property && Object.hasOwn(property, 'default') && property.default !== undefined)
      // Defined, not assigned: a field named `__proto__` is an own field like any other (sent back to the server).
      Object.defineProperty(out, name, {
        value: structuredClone(property.default) as McpElicitationValue,
        enumerable: true,
        writable: true,
        configurable: true,
      });
  return out;
}

const FORMATS: Record<string, RegExp> = {
  email: /^[^\s@]+@[^\s@]+$/,
  uri: /^[A-Za-z][A-Za-z0-9+.-]*:\S*$/,
  date: /^\d{4}-\d{2}-\d{2}$/,
  'date-time': /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/,
};

/**
 * What is wrong with an answer under the requested schema (empty when it fits): a required field missing, a field
 * the schema does not have, a value of the wrong type, outside its enum, length, range or format.
 */
export function elicitationProblems(
  schema: Readonly<Record<string, unknown>>,
  content: Readonly<Record<string, unknown>>,
): string[] {
  const problems: string[] = [];
  const props = properties(schema);
  const required = Array.isArray(schema.required) ? (schema.required as unknown[]) : [];
  for (const name of required)
    if (typeof name === 'string' && !Object.hasOwn(content, name)) problems.push(`${name}: required`);
  for (const [name, value] of Object.entries(content)) {
    const p = Object.hasOwn(props, name) ? props[name] : undefined;
    if (!p) {
      problems.push(`${name}: not in the form`);
      continue;
    }
    const allowed = allowedValues(p);
    switch (p.type) {
      case 'string': {
        if (typeof value !== 'string') {
          problems.push(`${name}: not a string`);
          break;
        }
        if (allowed && !allowed.includes(value)) problems.push(`${name}: not one of ${allowed.join(', ')}`);
        if (typeof p.minLength === 'number' && value.length < p.minLength) problems.push(`${name}: too short`);
        if (typeof p.maxLength === 'number' && value.length > p.maxLength) problems.push(`${name}: too long`);
        const format = typeof p.format === 'string' ? FORMATS[p.format] : undefined;
        if (format && !format.test(value)) problems.push(`${name}: not a ${String(p.format)}`);
        break;
      }
      case 'number':
      case 'integer':
        if (typeof value !== 'number' || !Number.isFinite(value) || (p.type === 'integer' && !Number.isInteger(value)))
          problems.push(`${name}: not ${p.type === 'integer' ? 'an integer' : 'a number'}`);
        else {
          if (typeof p.minimum === 'number' && value < p.minimum) problems.push(`${name}: below ${p.minimum}`);
          if (typeof p.maximum === 'number' && value > p.maximum) problems.push(`${name}: above ${p.maximum}`);
        }
        break;
      case 'boolean':
        if (typeof value !== 'boolean') problems.push(`${name}: not a boolean`);
        break;
      case 'array': {
        const items = (p.items ?? {}) as Property;
        const options = allowedValues(items);
        if (!Array.isArray(value) || value.some((v) => typeof v !== 'string' || (options && !options.includes(v))))
          problems.push(`${name}: not a list of ${options ? options.join(', ') : 'strings'}`);
        else {
          if (typeof p.minItems === 'number' && value.length < p.minItems) problems.push(`${name}: too few`);
          if (typeof p.maxItems === 'number' && value.length > p.maxItems) problems.push(`${name}: too many`);
        }
        break;
      }
      default:
        problems.push(`${name}: the form's field type is not supported`);
    }
  }
  return problems;
}

/** The values an enum field allows (`enum`, or `oneOf`/`anyOf` of `const`), or undefined for a free field. */
function allowedValues(p: Property): string[] | undefined {
  if (Array.isArray(p.enum)) return p.enum.filter((v): v is string => typeof v === 'string');
  const choices = Array.isArray(p.oneOf) ? p.oneOf : Array.isArray(p.anyOf) ? p.anyOf : undefined;
  if (choices)
    return choices.flatMap((c: unknown) =>
      c && typeof c === 'object' && typeof (c as { const?: unknown }).const === 'string'
        ? [(c as { const: string }).const]
        : [],
    );
  return undefined;
}
