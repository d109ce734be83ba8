import { HostContractError } from './errors';
import type { V2SecurityScheme } from './operations';

/**
 * The oldest MoviePilot release the adapter supports: v2.5.6, whose live OpenAPI document (216 paths,
 * per-route security) the adapter and its simulator are tested against, with the newer 2.x document.
 * @public
 */
export const V2_MIN_VERSION = '2.5.6';

/** The schemes a route may list that the adapter can send (a cookie-only route is not callable). */
const KNOWN: ReadonlySet<string> = new Set<V2SecurityScheme>([
  'OAuth2PasswordBearer',
  'api_key_query',
  'api_key_header',
  'api_token_query',
]);

/**
 * What a host's own OpenAPI document says about its routes: which exist, and which credentials each
 * accepts (its `security` alternatives). Built from the live `GET /api/v1/openapi.json`.
 * @public
 */
export class V2HostContract {
  readonly #routes = new Map<string, { security: readonly string[]; declared: boolean }>();
  /** The parsed OpenAPI document the contract was read from. */
  readonly document: { openapi?: unknown; paths?: unknown; components?: unknown };

  /**
   * @param document - the parsed OpenAPI document
   * @throws {@link HostContractError} (`HOST_CONTRACT_INVALID`) when it is not an OpenAPI document with `paths`
   */
  constructor(document: { openapi?: unknown; paths?: unknown; components?: unknown }) {
    this.document = document;
    if (
      !document ||
      typeof document !== 'object' ||
      typeof document.openapi !== 'string' ||
      !document.paths ||
      typeof document.paths !== 'object'
    )
      throw new HostContractError(
        'the host\'s /api/v1/openapi.json is not an OpenAPI document (no "openapi" version or no "paths"); the adapter takes each route\'s authentication from it and does not guess',
      );
    for (const [path, methods] of Object.entries(
      document.paths as Record<string, Record<string, { security?: Array<Record<string, unknown>> | null }>>,
    )) {
      if (!methods || typeof methods !== 'object') continue;
      for (const [method, op] of Object.entries(methods)) {
        if (!['get', 'post', 'put', 'delete', 'patch'].includes(method)) continue;
        const security = Array.isArray(op?.security) ? op.security.flatMap((s) => Object.keys(s ?? {})) : [];
        this.#routes.set(`${method.toUpperCase()} ${path}`, { security, declared: Array.isArray(op?.security) });
      }
    }
  }

  /** Number of operations (method + path) the document lists. */
  get size(): number {
    return this.#routes.size;
  }

  /**
   * Whether the host serves a route.
   * @param method - HTTP method
   * @param path - path template as in the document
   */
  has(method: string, path: string): boolean {
    return this.#routes.has(`${method.toUpperCase()} ${path}`);
  }

  /**
   * The security alternatives of a route the adapter can send (cookie schemes left out); `[]` for a
   * route that declares none (public, or checked by the handler itself); `undefined` when the document
   * does not list the route.
   * @param method - HTTP method
   * @param path - path template as in the document
   */
  security(method: string, path: string): V2SecurityScheme[] | undefined {
    const r = this.#routes.get(`${method.toUpperCase()} ${path}`);
    return r ? (r.security.filter((s) => KNOWN.has(s)) as V2SecurityScheme[]) : undefined;
  }

  /**
   * Whether the route declares security that none of the adapter's schemes satisfies (e.g. a
   * cookie-only route).
   * @param method - HTTP method
   * @param path - path template
   */
  uncallable(method: string, path: string): boolean {
    const r = this.#routes.get(`${method.toUpperCase()} ${path}`);
    return !!r && r.declared && r.security.length > 0 && !r.security.some((s) => KNOWN.has(s));
  }
}

/**
 * Parses a MoviePilot version string (`v2.5.6`, `2.5.6`, `V2.15.6-beta`).
 * @param version - the version as the host reports it
 * @returns `[major, minor, patch]`, or `undefined` when it is not a version
 * @public
 */
export function parseV2Version(version: string): [number, number, number] | undefined {
  const m = /^\s*v?(\d+)\.(\d+)(?:\.(\d+))?/i.exec(version);
  return m ? [Number(m[1]), Number(m[2]), Number(m[3] ?? 0)] : undefined;
}

/**
 * Compares two versions.
 * @param a - a version (`v2.5.6`)
 * @param b - another
 * @returns negative when `a` is older, 0 when equal, positive when newer; `NaN` when either is not a version
 * @public
 */
export function compareV2Versions(a: string, b: string): number {
  const x = parseV2Version(a);
  const y = parseV2Version(b);
  if (!x || !y) return Number.NaN;
  return x[0] - y[0] || x[1] - y[1] || x[2] - y[2];
}
