import { MediaAgentError } from '../core/errors';
import type { ProviderSchemaProblem } from '../models/provider-schema';

/**
 * No capability is registered under the id.
 * @public
 */
export class CapabilityNotFoundError extends MediaAgentError {
  /** @param id - the id asked for */
  constructor(id: string) {
    super('CAPABILITY_NOT_FOUND', `no capability is registered with id ${JSON.stringify(id)}`, { capabilityId: id });
  }
}

/**
 * Two capabilities were registered with one id; the message names both.
 * @public
 */
export class DuplicateCapabilityError extends MediaAgentError {
  /** @param id - the shared id; @param existing - title/version of the registered one; @param incoming - title/version of the rejected one */
  constructor(id: string, existing: { title: string; version: number }, incoming: { title: string; version: number }) {
    super(
      'CAPABILITY_DUPLICATE',
      `capability id ${JSON.stringify(id)} is already registered by "${existing.title}" (v${existing.version}); cannot also register "${incoming.title}" (v${incoming.version})`,
      { capabilityId: id, existing, incoming },
    );
  }
}

/**
 * A capability definition is malformed (bad id, version, kind, replay policy or schema).
 * @public
 */
export class InvalidCapabilityError extends MediaAgentError {
  /** @param id - the definition's id (as given); @param reason - what is wrong */
  constructor(id: unknown, reason: string) {
    super('CAPABILITY_DEFINITION_INVALID', `invalid capability definition ${JSON.stringify(String(id))}: ${reason}`, {
      capabilityId: String(id),
      reason,
    });
  }
}

/**
 * A handler ran past its deadline: the capability's `timeoutMs`, else the host's `capabilityTimeoutMs`
 * (default 120 000 ms). It is the reason of the handler's `signal` when the deadline aborts it, and the
 * failure of a `read`/`preview` (or `replay: 'safe'`) call past it; an effectful call past it is settled
 * `unknown` with this code instead. Code `CAPABILITY_TIMEOUT`; `details`: `capabilityId`, `timeoutMs`.
 * @public
 */
export class CapabilityTimeoutError extends MediaAgentError {
  /** @param id - the capability; @param timeoutMs - the deadline that passed, in ms */
  constructor(id: string, timeoutMs: number) {
    super('CAPABILITY_TIMEOUT', `${id}: the handler did not finish within its deadline of ${timeoutMs} ms`, {
      capabilityId: id,
      timeoutMs,
    });
  }
}

/**
 * A capability's input schema cannot be offered to model providers, not even rewritten (see
 * `checkProviderSchema`): e.g. a recursive `$ref` (rule `ref-recursive`), a `$ref` that does not resolve
 * (`ref-unresolved`), a root that is not an object and has no object alternative (`root-not-object`); or it
 * cannot be enforced as the JSON Schema 2020-12 it is published as: a `$schema` dialect other than 2020-12
 * or draft-06/-07, or a draft-07 `$ref` with sibling keywords (`schema-dialect`), a TypeBox refinement or
 * codec (`schema-refine`).
 * Code `CAPABILITY_SCHEMA_UNSUPPORTED`; `details` carry `capabilityId`, the first problem's `rule` and `path`,
 * and every problem (rule, JSON pointer, message).
 * Thrown by `defineCapability` and `CapabilityRegistry.register`, so one such capability never reaches a
 * model request (where the provider would refuse every call of every run with HTTP 400).
 * @public
 */
export class CapabilitySchemaUnsupportedError extends MediaAgentError {
  /** Every rule broken, with the JSON pointer into the input schema. */
  readonly problems: readonly ProviderSchemaProblem[];
  /** The rule of the first problem, e.g. `ref-recursive`. */
  readonly rule: string;
  /** The JSON pointer of the first problem into the input schema (`""` is the root). */
  readonly path: string;
  /** @param id - the capability id (as given); @param problems - the refusals of `checkProviderSchema` (at least one) */
  constructor(id: unknown, problems: readonly ProviderSchemaProblem[]) {
    const list = problems
      .slice(0, 5)
      .map((p) => `${p.rule} at ${p.path || '/'}: ${p.message}`)
      .join('; ');
    super(
      'CAPABILITY_SCHEMA_UNSUPPORTED',
      `the input schema of capability ${JSON.stringify(String(id))} ${problems.some((p) => p.rule.startsWith('schema-') && p.rule !== 'schema-invalid' && p.rule !== 'schema-too-large') ? 'cannot be enforced as the JSON Schema 2020-12 it is published as' : 'cannot be offered to model providers'}: ${list}${problems.length > 5 ? ` (+${problems.length - 5} more)` : ''}`,
      {
        capabilityId: String(id),
        rule: problems[0]?.rule ?? '',
        path: problems[0]?.path ?? '',
        problems: problems.map((p) => ({ ...p })),
      },
    );
    this.problems = Object.freeze(problems.map((p) => Object.freeze({ ...p })));
    this.rule = problems[0]?.rule ?? '';
    this.path = problems[0]?.path ?? '';
  }
}

/** One schema violation: JSON pointer of the value and what is wrong. @public */
export interface InputIssue {
  /** JSON pointer into the input, `""` for the root. */
  path: string;
  /** What is wrong. */
  message: string;
}

/**
 * The input does not match the capability's schema; the handler was not called.
 * @public
 */
export class InvalidInputError extends MediaAgentError {
  /** Every violation found. */
  readonly issues: readonly InputIssue[];
  /** @param capabilityId - the capability; @param issues - violations (paths and messages) */
  constructor(capabilityId: string, issues: InputIssue[]) {
    const list = issues
      .slice(0, 10)
      .map((i) => `${i.path || '/'}: ${i.message}`)
      .join('; ');
    super(
      'INPUT_INVALID',
      `invalid input for ${capabilityId}: ${list}${issues.length > 10 ? ` (+${issues.length - 10} more)` : ''}`,
      { capabilityId, issues },
    );
    this.issues = issues;
  }
}

/**
 * The input's JSON is larger than the configured limit (default 1 MiB); the handler was not called.
 * @public
 */
export class InputTooLargeError extends MediaAgentError {
  /** @param capabilityId - the capability; @param bytes - UTF-8 size of the input's JSON; @param limit - limit in bytes */
  constructor(capabilityId: string, bytes: number, limit: number) {
    super('INPUT_TOO_LARGE', `input for ${capabilityId} is ${bytes} bytes of JSON, over the ${limit}-byte limit`, {
      capabilityId,
      bytes,
      limit,
    });
  }
}

/**
 * Thrown by a handler when its side effect may have happened but the outcome is not known
 * (transport broke after the request was sent, timeout, unreadable response). The ledger records
 * `unknown`.
 * @public
 */
export class OutcomeUnknownError extends MediaAgentError {
  /** @param message - what happened; @param options - `{ cause }` */
  constructor(message = 'the outcome of the side effect is unknown', options?: ErrorOptions) {
    super('OUTCOME_UNKNOWN', message, {}, options);
  }
}

/**
 * A verifier tried to invoke a capability that is not `read` or `preview`.
 * @public
 */
export class VerifierNotReadOnlyError extends MediaAgentError {
  /** @param capabilityId - the capability the verifier tried; @param kind - its kind */
  constructor(capabilityId: string, kind: string) {
    super(
      'VERIFIER_NOT_READ_ONLY',
      `a verifier may only invoke read or preview capabilities; ${capabilityId} is ${kind}`,
      { capabilityId, kind },
    );
  }
}

/**
 * A field of the invocation context has the wrong type (the context is built by the host or runtime).
 * @public
 */
export class InvalidContextError extends MediaAgentError {
  /** @param field - the context field; @param expected - what it must be */
  constructor(field: string, expected: string) {
    super('CONTEXT_INVALID', `invocation context field ${field} must be ${expected}`, { field });
  }
}

/**
 * The caller's signal was already aborted: nothing was claimed or run.
 * @public
 */
export class InvocationAbortedError extends MediaAgentError {
  /** @param capabilityId - the capability */
  constructor(capabilityId: string) {
    super('INVOCATION_ABORTED', `the call to ${capabilityId} was aborted before it started; nothing ran`, {
      capabilityId,
    });
  }
}
