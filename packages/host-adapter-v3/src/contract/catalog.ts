import { MediaAgentError } from '@media-agent/sdk';
import { V3_OPERATIONS } from './operations';
import type { V3Operation } from './types';
import type { V3ErrorCode } from '../error-codes';

/**
 * No operation with this id is in the V3 catalog (`contracts/v3-operations.json`); nothing was sent.
 * @public
 */
export class V3UnknownOperationError extends MediaAgentError<V3ErrorCode> {
  /** @param operationId - the id asked for */
  constructor(operationId: string) {
    super('HOST_UNKNOWN_OPERATION', `MoviePilot V3 has no operation ${JSON.stringify(operationId)} in its catalog`, {
      operationId,
    });
  }
}

const byId = new Map(V3_OPERATIONS.map((o) => [o.operation_id, o]));

/**
 * The catalog entry of an operation.
 * @param operationId - e.g. `transfer.file`
 * @returns the entry
 * @throws {@link V3UnknownOperationError} (`HOST_UNKNOWN_OPERATION`) for an id not in the catalog
 * @public
 */
export function v3Operation(operationId: string): V3Operation {
  const op = byId.get(operationId);
  if (!op) throw new V3UnknownOperationError(operationId);
  return op;
}

/** Splits a route template into segments. @internal */
function segments(path: string): string[] {
  return path.split('/').filter(Boolean);
}

/**
 * The catalog operations whose method and route template match a concrete request path (several
 * operations may share one route, e.g. `media.search` and `media.person.search`); routes with more
 * literal segments first.
 * @param method - HTTP method
 * @param pathname - request path without the query, e.g. `/api/v1/search/media/693134`
 * @returns matches with the path parameters they bind (decoded); empty when no route matches
 * @public
 */
export function matchV3Route(
  method: string,
  pathname: string,
): Array<{ operation: V3Operation; params: Record<string, string> }> {
  const parts = segments(pathname);
  const trailingSlash = pathname.length > 1 && pathname.endsWith('/');
  const out: Array<{ operation: V3Operation; params: Record<string, string>; literals: number }> = [];
  for (const op of V3_OPERATIONS) {
    if (op.method !== method.toUpperCase()) continue;
    const tpl = segments(op.path);
    if (tpl.length !== parts.length || op.path.endsWith('/') !== trailingSlash) continue;
    const params: Record<string, string> = {};
    let literals = 0;
    let ok = true;
    for (let i = 0; i < tpl.length && ok; i++) {
      const t = tpl[i]!;
      const p = parts[i]!;
      if (t.startsWith('{') && t.endsWith('}')) {
        try {
          params[t.slice(1, -1)] = decodeURIComponent(p);
        } catch {
          ok = false;
        }
      } else if (t === p) literals++;
      else ok = false;
    }
    if (ok) out.push({ operation: op, params, literals });
  }
  const best = Math.max(-1, ...out.map((m) => m.literals));
  return out.filter((m) => m.literals === best).map(({ operation, params }) => ({ operation, params }));
}

/**
 * Fills a route template's `{name}` parameters (URL-encoded).
 * @param template - e.g. `/api/v1/subscribe/{subscribe_id}`
 * @param params - values by name
 * @returns the path
 * @throws `HOST_REQUEST_INVALID` when a parameter is missing or empty
 * @public
 */
export function fillV3Path(template: string, params: Record<string, string | number> = {}): string {
  return template.replace(/\{([^}]+)\}/g, (_m, name: string) => {
    const v = params[name];
    if (v === undefined || v === null || String(v) === '')
      throw new MediaAgentError<V3ErrorCode>(
        'HOST_REQUEST_INVALID',
        `path parameter ${name} is required for ${template}`,
        { template, name },
      );
    return encodeURIComponent(String(v));
  });
}
