// Tool discovery, attached as a middleware.
import type { TokenCounter } from '../../models/token-counter';
import { SEARCH_TOOLS_TOOL, ToolDiscovery, type ToolDiscoveryState } from '../context/tool-discovery';
import type { MiddlewareState, RunMiddleware } from './run-middleware';

/** What {@link toolDiscoveryMiddleware} needs. @internal */
export interface ToolDiscoveryMiddlewareOptions {
  /** Capabilities offered on the first model call, ranked against the goal (`> 0`; `LLM_MAX_TOOLS`). */
  maxTools: number;
  /** Token counting (tool schemas, the request). */
  counter: TokenCounter;
  /** Model id (selects the encoding). */
  model: string;
  /** The model's context window in tokens. */
  contextWindowTokens: number;
}

/** The tool discovery of a run while it is driven (shared with the `search_tools` tool). */
interface DiscoverySlot {
  discovery: ToolDiscovery | undefined;
}

/** Key of the discovery in the run's runtime state (and of its slot in memory). @internal */
export const TOOL_DISCOVERY_STATE_KEY = 'discovery';

/**
 * The tool discovery of the run whose middleware state this is, when the drive has one (for the
 * `search_tools` tool).
 * @internal
 */
export function discoveryIn(locals: ReadonlyMap<string, unknown>): ToolDiscovery | undefined {
  return (locals.get(TOOL_DISCOVERY_STATE_KEY) as DiscoverySlot | undefined)?.discovery;
}

function slotOf(state: MiddlewareState): DiscoverySlot {
  return state.local<DiscoverySlot>(() => ({ discovery: undefined }));
}

/**
 * Tool discovery as a {@link RunMiddleware} named `tool_discovery`: a drive
 * starts from the always-on runtime tools (with `search_tools`) and the `maxTools` capabilities that
 * best match the goal; each request adds the candidates `search_tools` found while they fit the
 * tool budget, with a note saying which were enabled and why others were not. Its state is saved
 * with each request and each search, so a resumed run offers the same tools. Discovery only changes
 * what is offered: every call is still authorized on the invocation path.
 * @param options - `maxTools`, counter, model, window
 * @returns the middleware
 * @internal
 */
export function toolDiscoveryMiddleware(options: ToolDiscoveryMiddlewareOptions): RunMiddleware {
  return {
    name: 'tool_discovery',
    onDriveStart(ctx) {
      const settings = {
        maxTools: options.maxTools,
        counter: options.counter,
        model: options.model,
        contextWindowTokens: options.contextWindowTokens,
        alwaysOn: [...ctx.runtimeTools],
      };
      const saved = ctx.state.get();
      let discovery: ToolDiscovery;
      if (saved) discovery = ToolDiscovery.fromJSON(saved as unknown as ToolDiscoveryState, ctx.catalog, settings);
      else {
        discovery = new ToolDiscovery(ctx.catalog, settings);
        discovery.select(ctx.run.goal);
      }
      slotOf(ctx.state).discovery = discovery;
      ctx.tools = discovery.baseTools();
    },
    beforeModelRequest(ctx) {
      const discovery = slotOf(ctx.state).discovery;
      if (!discovery) return;
      const next = discovery.toolsForNextCall(
        ctx.requestTokens !== undefined ? { requestTokens: ctx.requestTokens } : { messages: ctx.messages },
      );
      ctx.tools = next.tools;
      if (next.note) ctx.messages = [{ role: 'system', content: next.note }, ...ctx.messages];
      ctx.state.set(discovery.toJSON() as never);
    },
    afterToolCall(ctx) {
      const discovery = slotOf(ctx.state).discovery;
      if (discovery && ctx.call.name === SEARCH_TOOLS_TOOL) ctx.state.set(discovery.toJSON() as never);
    },
  };
}
