import type { Verifier } from '@media-agent/sdk';

/** Input of a catalog call capability (`mp.<operation_id>`): the host gateway's `moviepilot_api` shape. @public */
export interface V3CallArgs {
  /** Route parameters by name. */
  path_params?: Record<string, string | number>;
  /** Query parameters. */
  query?: Record<string, unknown>;
  /** JSON body (writes). */
  body?: unknown;
  /** Plan from `mp.operation.plan`, when the call needs an approval. */
  planId?: string;
}

/** Output of a catalog call capability (`mp.<operation_id>`): the unwrapped answer. @public */
export interface V3CallResult {
  /** HTTP status. */
  status: number;
  /** The envelope's `success`. */
  success: boolean;
  /** The envelope's `message`. */
  message: string;
  /** The envelope's `data`. */
  data: unknown;
}

interface HistoryRecord {
  id: number;
  src?: string;
  dest?: string;
  state?: string;
  status?: boolean;
  errmsg?: string;
}

/** Pages of `transfer.history` (200 records each, newest first) the verifier reads at most. @internal */
const HISTORY_PAGES = 5;

/**
 * The read-only verifier of `mp.transfer.file`. `transfer.file` is a `never`-replay write (recovery `reconcile`): when its answer
 * is lost, the verifier reads `mp.transfer.history` (newest first, up to 1 000 records) and, when
 * nothing is there, `mp.transfer.queue`, through the invocation path, looking for the request's files
 * (`fileitem.path` and `fileitems[].path`) as record sources.
 *
 * - Any record of these files: the host holds the batch → `succeeded`, with the receipts rebuilt from
 *   the records (`state` as recorded: only `completed` means organized; `accepted`/`retry_wait` are
 *   still queued). The batch is never resubmitted, as `organize.execute` never resubmits it.
 * - No record and nothing queued: `failed` (verifiably not transferred), so the call may run again.
 * - A `preview: true` call transfers nothing: `failed`, so it may run again.
 * @public
 */
export const verifyV3TransferFile: Verifier<V3CallArgs, V3CallResult> = async ({ input, read }) => {
  const body = (input.body ?? {}) as {
    fileitem?: { path?: unknown };
    fileitems?: Array<{ path?: unknown }>;
    preview?: unknown;
  };
  if (body.preview === true) return { status: 'failed', reason: 'a preview transfers nothing; it may run again' };
  const paths = new Set(
    [body.fileitem, ...(Array.isArray(body.fileitems) ? body.fileitems : [])]
      .map((f) => f?.path)
      .filter((p): p is string => typeof p === 'string' && p.length > 0),
  );
  if (paths.size === 0)
    return { status: 'unknown', reason: 'the call names no file path to look up in the transfer history' };
  const found: HistoryRecord[] = [];
  for (let page = 1; page <= HISTORY_PAGES; page++) {
    const r = (await read('mp.transfer.history', { query: { page, count: 200 } })) as V3CallResult;
    const data = (r.data ?? {}) as { list?: HistoryRecord[]; total?: number };
    const list = Array.isArray(data.list) ? data.list : [];
    found.push(...list.filter((t) => typeof t.src === 'string' && paths.has(t.src)));
    if (list.length < 200 || page * 200 >= (data.total ?? 0)) break;
  }
  if (found.length === 0) {
    const q = (await read('mp.transfer.queue', {})) as V3CallResult;
    const queued = (Array.isArray(q.data) ? (q.data as Array<Record<string, unknown>>) : []).filter((x) =>
      [x.src, x.path, (x.fileitem as { path?: unknown } | undefined)?.path].some(
        (p) => typeof p === 'string' && paths.has(p),
      ),
    );
    if (queued.length === 0)
      return { status: 'failed', reason: `the transfer history and queue have no record of ${[...paths].join(', ')}` };
    found.push(
      ...queued.map((x) => ({
        id: Number(x.id ?? 0),
        src: String(x.src ?? x.path ?? ''),
        state: String(x.state ?? 'accepted'),
      })),
    );
  }
  const items = found.map((t) => {
    const state = t.state ?? (t.status ? 'completed' : 'failed');
    return {
      source: t.src ?? '',
      target_dir: t.dest ?? '',
      state,
      success: state === 'completed',
      message: t.errmsg ?? '',
      history_id: t.id,
    };
  });
  const ok = items.every((i) => i.state !== 'failed');
  return {
    status: 'succeeded',
    output: {
      status: 200,
      success: ok,
      message: `settled from the transfer history (the answer of the original call was lost)${ok ? '' : ': some items failed'}`,
      data: { items },
    },
  };
};
