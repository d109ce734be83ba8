// Local node:http servers shaped like the model servers a household runs: each answers its model list in the
// server's own format (the shapes of their docs and recorded answers) and records every request it gets.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A request the server got. */
export interface SeenRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
}

/** One route's answer. */
export interface Answer {
  status?: number;
  headers?: Record<string, string>;
  body: string;
  /** Never answer (the socket stays open until the server closes). */
  hang?: boolean;
}

/** A running server. */
export interface ModelServer {
  /** `http://127.0.0.1:<port>` */
  origin: string;
  /** Requests, in order. */
  seen: SeenRequest[];
  close(): Promise<void>;
}

const json = (value: unknown): Answer => ({
  headers: { 'content-type': 'application/json; charset=utf-8' },
  body: JSON.stringify(value),
});

/**
 * Starts a server answering `routes[path]` (path without query); other paths answer 404 with Ollama's
 * plain-text `404 page not found`.
 */
export async function startModelServer(routes: Record<string, Answer>): Promise<ModelServer> {
  const seen: SeenRequest[] = [];
  const server: Server = createServer((req, res) => {
    seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers });
    const answer = routes[(req.url ?? '').split('?')[0]!];
    if (!answer) {
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' });
      res.end('404 page not found');
      return;
    }
    if (answer.hang) return;
    res.writeHead(answer.status ?? 200, answer.headers ?? {});
    res.end(answer.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Ollama: `/v1/models` (OpenAI shape, `owned_by: library`), `/api/tags`, and `Ollama is running` at `/`. */
export function ollamaRoutes(models: string[]): Record<string, Answer> {
  return {
    '/': { headers: { 'content-type': 'text/plain; charset=utf-8' }, body: 'Ollama is running' },
    '/v1/models': json({
      object: 'list',
      data: models.map((id) => ({ id, object: 'model', created: 1756233996, owned_by: 'library' })),
    }),
    '/api/tags': json({
      models: models.map((name) => ({
        name,
        model: name,
        modified_at: '2025-08-26T21:46:36.388995313+03:00',
        size: 20201253829,
        digest: '030ee887880fc378860c2dd35101da424377520441ae4bfe7be6deff8ade7840',
        details: { format: 'gguf', family: 'qwen3', parameter_size: '8.2B', quantization_level: 'Q4_K_M' },
      })),
    }),
  };
}

/** An Ollama older than its OpenAI-compatible model list: only `/api/tags`. */
export function ollamaTagsOnlyRoutes(models: string[]): Record<string, Answer> {
  const routes = ollamaRoutes(models);
  delete routes['/v1/models'];
  return routes;
}

/** llama.cpp server: `/v1/models` lists the loaded file by its path (or `--alias`), with `meta`. */
export function llamacppRoutes(models: string[]): Record<string, Answer> {
  return {
    '/v1/models': json({
      object: 'list',
      data: models.map((id) => ({
        id,
        object: 'model',
        created: 1754518951,
        owned_by: 'llamacpp',
        meta: {
          vocab_type: 2,
          n_vocab: 151936,
          n_ctx_train: 40960,
          n_embd: 4096,
          n_params: 8190735360,
          size: 5027783488,
        },
      })),
    }),
    '/health': json({ status: 'ok' }),
  };
}

/** vLLM: `/v1/models` with `root`, `max_model_len` and `permission`. */
export function vllmRoutes(models: string[]): Record<string, Answer> {
  return {
    '/v1/models': json({
      object: 'list',
      data: models.map((id) => ({
        id,
        object: 'model',
        created: 1741824039,
        owned_by: 'vllm',
        root: id,
        parent: null,
        max_model_len: 32768,
        permission: [{ id: 'modelperm-0', object: 'model_permission', allow_sampling: true }],
      })),
    }),
  };
}

/** LM Studio: `/v1/models` (downloaded models, JIT loading on) with `owned_by: organization_owner`. */
export function lmstudioRoutes(models: string[]): Record<string, Answer> {
  return {
    '/v1/models': json({
      data: models.map((id) => ({ id, object: 'model', owned_by: 'organization_owner' })),
      object: 'list',
    }),
  };
}

/** A home router's login page answered for every path (a wrong port, or a proxy in front). */
export function routerLoginRoutes(): Record<string, Answer> {
  const page = '<!DOCTYPE html>\n<html><head><title>Router Login</title></head><body><form>…</form></body></html>';
  const answer: Answer = { headers: { 'content-type': 'text/html; charset=utf-8' }, body: page };
  return { '/': answer, '/v1/models': answer, '/api/tags': answer };
}

/** The origin of a port nothing listens on (a server started, then closed). */
export async function deadOrigin(): Promise<string> {
  const server = await startModelServer({});
  await server.close();
  return server.origin;
}
