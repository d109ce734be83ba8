// tools/list of a consumed MCP server, every page, bounded: a server cannot stall or flood the client with it.
import { MediaAgentError } from '../core/errors';
import { isConnectionCut } from './connection-cut';
import type { ListedTool } from './tool-drift';

/** At most this many `tools/list` pages are read for one listing. */
export const MCP_MAX_TOOL_PAGES = 100;
/** At most this many tools are accepted from one listing. */
export const MCP_MAX_TOOLS = 1000;
/** A page whose connection was cut is asked again this many times (a listing is a read), 100 ms then 400 ms apart. */
export const MCP_LIST_PAGE_RETRIES = 2;

/**
 * Lists every tool of the server, following `nextCursor` until it is absent.
 * @throws `MCP_TOOL_LIST_INVALID` (details `server`, `reason`: `pages` or `tools`, `limit`) past
 *   {@link MCP_MAX_TOOL_PAGES} pages or {@link MCP_MAX_TOOLS} tools (a server whose cursor never ends, or that
 *   lists more tools than a model can be offered); `MCP_TOOL_LIST_INVALID` (`reason` `duplicate`, `tool`) when
 *   the listing names one tool twice (which of its definitions holds is not knowable); whatever `listTools` throws
 *   (a page whose connection was cut — a kept-alive socket the server closed as the request went out, a reset —
 *   is asked again, {@link MCP_LIST_PAGE_RETRIES} times at most, before its error is thrown)
 */
export async function listAllTools(
  server: string,
  client: { listTools(params?: { cursor?: string }): Promise<{ tools: unknown[]; nextCursor?: string }> },
): Promise<ListedTool[]> {
  const tools: ListedTool[] = [];
  let cursor: string | undefined;
  for (let pages = 0; ; pages++) {
    if (pages === MCP_MAX_TOOL_PAGES)
      throw tooMany(
        server,
        'pages',
        MCP_MAX_TOOL_PAGES,
        `its tools/list did not end within ${MCP_MAX_TOOL_PAGES} pages`,
      );
    const page = await listPage(client, cursor);
    tools.push(...(page.tools as ListedTool[]));
    if (tools.length > MCP_MAX_TOOLS)
      throw tooMany(server, 'tools', MCP_MAX_TOOLS, `it lists more than ${MCP_MAX_TOOLS} tools`);
    cursor = page.nextCursor;
    if (!cursor) return unique(server, tools);
  }
}

/** One page; asked again when its connection was cut. */
async function listPage(
  client: { listTools(params?: { cursor?: string }): Promise<{ tools: unknown[]; nextCursor?: string }> },
  cursor: string | undefined,
): Promise<{ tools: unknown[]; nextCursor?: string }> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await client.listTools(cursor ? { cursor } : undefined);
    } catch (error) {
      if (attempt >= MCP_LIST_PAGE_RETRIES || !isConnectionCut(error)) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100 * 4 ** attempt));
    }
  }
}

/** The listing itself, when no name occurs twice in it. */
function unique(server: string, tools: ListedTool[]): ListedTool[] {
  const seen = new Set<unknown>();
  for (const tool of tools) {
    const name = (tool as { name?: unknown } | null)?.name;
    if (seen.has(name))
      throw new MediaAgentError(
        'MCP_TOOL_LIST_INVALID',
        `MCP server ${server}: its tools/list names the tool ${String(name)} twice; its tools were not accepted`,
        { server, reason: 'duplicate', tool: String(name) },
      );
    seen.add(name);
  }
  return tools;
}

function tooMany(server: string, reason: 'pages' | 'tools', limit: number, what: string): MediaAgentError {
  return new MediaAgentError('MCP_TOOL_LIST_INVALID', `MCP server ${server}: ${what}; its tools were not accepted`, {
    server,
    reason,
    limit,
  });
}
