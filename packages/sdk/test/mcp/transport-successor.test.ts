// The successor rule: which transport objects the SDK can make again for a new session, and that the one it makes
// goes to the same server with the same options and no session id. Real StreamableHTTPClientTransport instances
// (this copy's ESM build, and its CommonJS build as "another copy"), their requests answered by the `fetch` option
// the class takes for that purpose.
import { createRequire } from 'node:module';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import {
  StreamableHTTPClientTransport,
  type StreamableHTTPClientTransportOptions,
} from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type { FetchLike, Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { describe, expect, it, vi } from 'vitest';
import { streamableHttpSuccessor } from '../../src/mcp/transport-successor';

const url = new URL('http://indexer.test:8808/mcp');
const initialize = {
  jsonrpc: '2.0' as const,
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
};
const initialized = { jsonrpc: '2.0' as const, method: 'notifications/initialized' };

/** A fetch answering `initialize` with a session id (and an empty event stream to a GET), recording each request. */
function recordingFetch() {
  const seen: Array<{ url: string; method: string; headers: Headers; redirect: RequestInit['redirect'] }> = [];
  const fetch: FetchLike = async (input, init) => {
    const method = init?.method ?? 'GET';
    seen.push({ url: String(input), method, headers: new Headers(init?.headers), redirect: init?.redirect });
    if (method === 'GET') return new Response('', { status: 200, headers: { 'content-type': 'text/event-stream' } });
    const body = JSON.parse(String(init?.body)) as { id?: number };
    if (body.id === undefined) return new Response(null, { status: 202 });
    return new Response(JSON.stringify({ jsonrpc: '2.0', id: body.id, result: {} }), {
      headers: { 'content-type': 'application/json', 'mcp-session-id': 'session-1' },
    });
  };
  return { fetch, seen };
}

/** Starts the transport and sends `initialize` over it. */
async function initializeOver(transport: Transport): Promise<void> {
  await transport.start();
  await transport.send(initialize);
}

describe('streamableHttpSuccessor', () => {
  it('makes a new transport of the same class, to the same URL, with the same requestInit and fetch, without the session id', async () => {
    const { fetch, seen } = recordingFetch();
    const original = new StreamableHTTPClientTransport(url, {
      fetch,
      requestInit: { headers: { 'x-indexer-key': 'k1' } },
      sessionId: 'resumed-session',
    });
    const successor = streamableHttpSuccessor(original);
    expect(successor).toBeTypeOf('function');
    await initializeOver(original);
    expect(original.sessionId).toBe('session-1');

    const next = successor!();
    expect(next).toBeInstanceOf(StreamableHTTPClientTransport);
    expect(next).not.toBe(original);
    expect(next.sessionId).toBeUndefined();
    expect(successor!()).not.toBe(next);
    await initializeOver(next);
    const sent = seen.at(-1)!;
    expect(sent.url).toBe(url.href);
    expect(sent.method).toBe('POST');
    expect(sent.headers.get('x-indexer-key')).toBe('k1');
    expect(sent.headers.has('mcp-session-id')).toBe(false);
    await original.close();
    await next.close();
  });

  it('keeps the authProvider: the new transport sends its access token', async () => {
    const { fetch, seen } = recordingFetch();
    const authProvider = {
      redirectUrl: 'http://localhost/callback',
      clientMetadata: { redirect_uris: ['http://localhost/callback'] },
      clientInformation: () => undefined,
      tokens: () => ({ access_token: 'token-1', token_type: 'Bearer' }),
      saveTokens: () => undefined,
      redirectToAuthorization: () => undefined,
      saveCodeVerifier: () => undefined,
      codeVerifier: () => 'verifier',
    } satisfies OAuthClientProvider;
    const next = streamableHttpSuccessor(new StreamableHTTPClientTransport(url, { fetch, authProvider }))!();
    await initializeOver(next);
    expect(seen.at(-1)!.headers.get('authorization')).toBe('Bearer token-1');
    await next.close();
  });

  it('keeps the reconnectionOptions: an event stream that ends is retried as the host configured', async () => {
    const { fetch } = recordingFetch();
    const reconnectionOptions = {
      maxRetries: 0,
      initialReconnectionDelay: 1000,
      maxReconnectionDelay: 1000,
      reconnectionDelayGrowFactor: 1,
    };
    const next = streamableHttpSuccessor(new StreamableHTTPClientTransport(url, { fetch, reconnectionOptions }))!();
    const errors: string[] = [];
    const gaveUp = new Promise<void>((resolve) => {
      next.onerror = (error) => {
        errors.push(error.message);
        if (error.message.includes('Maximum reconnection attempts')) resolve();
      };
    });
    await initializeOver(next);
    // After `initialized` the transport opens its GET event stream; the empty stream ends and, with maxRetries 0,
    // it gives up at once (the default is 2 retries after 1 s and 1.5 s).
    await next.send(initialized);
    await gaveUp;
    expect(errors).toContain('Maximum reconnection attempts (0) exceeded.');
    await next.close();
  });

  it.each([
    [undefined, 'manual'],
    ['same-origin', 'manual'],
    ['follow', undefined],
  ] as const)('keeps the redirectPolicy %s (the redirect mode of its requests: %s)', async (redirectPolicy, mode) => {
    const { fetch, seen } = recordingFetch();
    const options: StreamableHTTPClientTransportOptions = { fetch, ...(redirectPolicy ? { redirectPolicy } : {}) };
    const next = streamableHttpSuccessor(new StreamableHTTPClientTransport(url, options))!();
    await initializeOver(next);
    await next.send(initialized);
    // The GET of the event stream, opened after `initialized`, follows redirects by the policy alone.
    await vi.waitFor(() => expect(seen.some((r) => r.method === 'GET')).toBe(true), { timeout: 10_000 });
    expect(seen.map((r) => [r.method, r.redirect])).toEqual([
      ['POST', mode],
      ['POST', mode],
      ['GET', mode],
    ]);
    await next.close();
  });

  it('a StreamableHTTPClientTransport of another copy of the MCP SDK (its CommonJS build): made by that copy', () => {
    const require = createRequire(import.meta.url);
    const other = require('@modelcontextprotocol/sdk/client/streamableHttp.js') as {
      StreamableHTTPClientTransport: typeof StreamableHTTPClientTransport;
    };
    expect(other.StreamableHTTPClientTransport).not.toBe(StreamableHTTPClientTransport);
    const next = streamableHttpSuccessor(new other.StreamableHTTPClientTransport(url))!();
    expect(next).toBeInstanceOf(other.StreamableHTTPClientTransport);
    expect(next).not.toBeInstanceOf(StreamableHTTPClientTransport);
  });

  it('no successor: a stdio transport, a subclass, an instance that keeps its options otherwise, anything else', () => {
    expect(streamableHttpSuccessor(new StdioClientTransport({ command: 'indexer-mcp' }))).toBeUndefined();
    class Traced extends StreamableHTTPClientTransport {}
    expect(streamableHttpSuccessor(new Traced(url))).toBeUndefined();
    // Another SDK version, whose instances keep the URL or the options under other names.
    for (const field of ['_url', '_requestInit', '_authProvider', '_fetch', '_reconnectionOptions']) {
      const transport = new StreamableHTTPClientTransport(url);
      delete (transport as unknown as Record<string, unknown>)[field];
      expect(streamableHttpSuccessor(transport), field).toBeUndefined();
    }
    const stringUrl = new StreamableHTTPClientTransport(url);
    (stringUrl as unknown as Record<string, unknown>)._url = url.href;
    expect(streamableHttpSuccessor(stringUrl)).toBeUndefined();
    const oddPolicy = new StreamableHTTPClientTransport(url);
    (oddPolicy as unknown as Record<string, unknown>)._followRedirects = 'follow';
    expect(streamableHttpSuccessor(oddPolicy)).toBeUndefined();
    for (const value of [undefined, null, 'http://indexer.test/mcp', {}, () => undefined])
      expect(streamableHttpSuccessor(value)).toBeUndefined();
  });

  it('an instance without a redirect policy field (MCP SDK before the redirectPolicy option) still has a successor', async () => {
    const { fetch, seen } = recordingFetch();
    const older = new StreamableHTTPClientTransport(url, { fetch });
    delete (older as unknown as Record<string, unknown>)._followRedirects;
    const next = streamableHttpSuccessor(older)!();
    await initializeOver(next);
    expect(seen.at(-1)!.url).toBe(url.href);
    await next.close();
  });
});
