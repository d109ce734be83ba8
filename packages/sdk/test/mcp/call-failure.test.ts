// The rule that classifies a failed MCP request by what can be proved about its delivery, fed the errors the MCP
// SDK and Node's fetch really raise (against local sockets on 127.0.0.1).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema, ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { classifyMcpCallFailure } from '../../src/mcp/call-failure';

const plain = { sentWithSession: false, aborted: false };
const withSession = { sentWithSession: true, aborted: false };

const servers: Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise<void>((resolve) => s.close(() => resolve()));
  }
});

async function listening(handler: Parameters<typeof createServer>[1]): Promise<URL> {
  const server = createServer(handler);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`);
}

const fetchError = (url: URL) =>
  fetch(url, { method: 'POST', body: '{}' }).then(
    () => {
      throw new Error('expected the fetch to fail');
    },
    (error: unknown) => error,
  );

describe('classifyMcpCallFailure', () => {
  it('HTTP 404 to a request that carried a session id: the session ended, the request reached no handler', () => {
    const error = new StreamableHTTPError(404, 'Error POSTing to endpoint: Session not found');
    expect(classifyMcpCallFailure(error, withSession)).toEqual({
      kind: 'not-delivered',
      reason: 'session-expired',
      httpStatus: 404,
    });
    // Without a session id a 404 is a refusal of the HTTP layer (a wrong URL), not an ended session.
    expect(classifyMcpCallFailure(error, plain)).toEqual({
      kind: 'not-delivered',
      reason: 'http-status',
      httpStatus: 404,
    });
  });

  it('another 4xx is refused before JSON-RPC handling; a 5xx may follow a run; -1 is an unreadable answer', () => {
    expect(classifyMcpCallFailure(new StreamableHTTPError(400, 'Bad Request'), withSession)).toMatchObject({
      kind: 'not-delivered',
      reason: 'http-status',
      httpStatus: 400,
    });
    expect(classifyMcpCallFailure(new StreamableHTTPError(502, 'Bad Gateway'), withSession)).toEqual({
      kind: 'lost',
      httpStatus: 502,
    });
    expect(classifyMcpCallFailure(new StreamableHTTPError(-1, 'Unexpected content type'), withSession)).toEqual({
      kind: 'invalid-result',
    });
  });

  it('a timeout is a timeout, a closed connection is lost, another JSON-RPC error is the server’s refusal', () => {
    const timeout = McpError.fromError(ErrorCode.RequestTimeout, 'Request timed out', { timeout: 300 });
    expect(classifyMcpCallFailure(timeout, withSession)).toEqual({ kind: 'timeout', timeoutMs: 300 });
    expect(classifyMcpCallFailure(new McpError(ErrorCode.ConnectionClosed, 'Connection closed'), plain)).toEqual({
      kind: 'lost',
    });
    expect(classifyMcpCallFailure(new McpError(ErrorCode.InvalidParams, 'bad'), plain)).toEqual({
      kind: 'refused',
      rpcCode: ErrorCode.InvalidParams,
    });
    // The caller's abort also arrives as RequestTimeout from the MCP SDK: the signal decides.
    expect(classifyMcpCallFailure(timeout, { sentWithSession: true, aborted: true })).toEqual({ kind: 'aborted' });
  });

  it('a connection refused sent nothing; a connection closed after the request was written may have run it', async () => {
    const refusedAt = await listening((_req, res) => res.end());
    servers.pop()!.close();
    expect(classifyMcpCallFailure(await fetchError(refusedAt), withSession)).toEqual({
      kind: 'not-delivered',
      reason: 'unreachable',
      networkCode: 'ECONNREFUSED',
    });
    // The server reads the request, then drops the connection without answering.
    const dropping = await listening((req) => {
      req.resume();
      req.on('end', () => req.socket.destroy());
    });
    expect(classifyMcpCallFailure(await fetchError(dropping), withSession)).toMatchObject({ kind: 'lost' });
  });

  it('a client that is not connected sent nothing; a result that does not parse is an unreadable answer', async () => {
    const never = new Client({ name: 'never-connected', version: '1.0.0' });
    const notConnected = await never.callTool({ name: 'x' }).catch((e: unknown) => e);
    expect(classifyMcpCallFailure(notConnected, plain)).toEqual({ kind: 'not-delivered', reason: 'not-connected' });
    const parsed = CallToolResultSchema.safeParse({ content: 'not a list' });
    expect(parsed.success).toBe(false);
    expect(classifyMcpCallFailure(parsed.error, withSession)).toEqual({ kind: 'invalid-result' });
  });
});
