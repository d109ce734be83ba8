// A tools/list page whose connection was cut (a kept-alive socket the server closed as the request went out, seen
// as undici's "fetch failed … other side closed") is asked again; an answer of the server is not.
import { describe, expect, it } from 'vitest';
import { isConnectionCut } from '../../src/mcp/connection-cut';
import { listAllTools, MCP_LIST_PAGE_RETRIES } from '../../src/mcp/list-tools';

/** What undici's fetch throws when the server closed the socket under the request. */
function fetchFailed(code: string): Error {
  const socketError = Object.assign(new Error('other side closed'), { name: 'SocketError', code });
  return new TypeError('fetch failed', { cause: socketError });
}

describe('connection cuts', () => {
  it('a socket closed, closed client, reset or broken pipe is a cut, also as a cause of a cause', () => {
    for (const code of ['UND_ERR_SOCKET', 'UND_ERR_CLOSED', 'ECONNRESET', 'EPIPE']) {
      expect(isConnectionCut(fetchFailed(code)), code).toBe(true);
      expect(isConnectionCut(new Error('wrapped', { cause: fetchFailed(code) })), code).toBe(true);
    }
  });

  it('a refused connection, a timeout, an HTTP or JSON-RPC answer and non-errors are not cuts', () => {
    expect(isConnectionCut(fetchFailed('ECONNREFUSED'))).toBe(false);
    expect(isConnectionCut(fetchFailed('UND_ERR_HEADERS_TIMEOUT'))).toBe(false);
    expect(isConnectionCut(Object.assign(new Error('Error POSTing to endpoint (HTTP 500)'), { code: 500 }))).toBe(
      false,
    );
    expect(isConnectionCut(Object.assign(new Error('MCP error -32603: catalog rebuilding'), { code: -32603 }))).toBe(
      false,
    );
    for (const value of [undefined, null, 'ECONNRESET', 42]) expect(isConnectionCut(value)).toBe(false);
  });
});

describe('listAllTools and cut connections', () => {
  const tools = [{ name: 'search', inputSchema: { type: 'object' } }];

  it('a page cut twice is asked a third time and the listing succeeds', async () => {
    let calls = 0;
    const client = {
      async listTools() {
        calls++;
        if (calls <= MCP_LIST_PAGE_RETRIES) throw fetchFailed('UND_ERR_SOCKET');
        return { tools };
      },
    };
    expect(await listAllTools('idx', client)).toEqual(tools);
    expect(calls).toBe(MCP_LIST_PAGE_RETRIES + 1);
  });

  it('a page cut every time fails with the cut after the retries; a server error fails at once', async () => {
    let cut = 0;
    const alwaysCut = {
      async listTools(): Promise<{ tools: unknown[] }> {
        cut++;
        throw fetchFailed('ECONNRESET');
      },
    };
    await expect(listAllTools('idx', alwaysCut)).rejects.toThrow('fetch failed');
    expect(cut).toBe(MCP_LIST_PAGE_RETRIES + 1);

    let answered = 0;
    const refuses = {
      async listTools(): Promise<{ tools: unknown[] }> {
        answered++;
        throw Object.assign(new Error('MCP error -32603: the tool catalog is being rebuilt'), { code: -32603 });
      },
    };
    await expect(listAllTools('idx', refuses)).rejects.toThrow('catalog is being rebuilt');
    expect(answered).toBe(1);
  });
});
