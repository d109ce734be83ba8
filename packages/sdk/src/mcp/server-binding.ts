// The connection a registered MCP server's capabilities call through, and the servers registered per registry.
import type { CapabilityRegistry } from '../capabilities/capability-registry';
import type { McpClientSession } from './client-session';
import type { McpCallInFlight } from './elicitation';
import type { McpToolWatch } from './tool-drift';

/** The current connection of one registered server; a re-registration replaces it. */
export interface ServerBinding {
  session: McpClientSession;
  /** The session's clients were made here: closed when the binding is replaced. */
  owned: boolean;
  watch: McpToolWatch;
  calls: Set<McpCallInFlight>;
  maxOutputBytes: number;
  callTimeoutMs: number;
}

/** A registered server: the capabilities registered for it (by tool name) and its current binding. */
export interface RegisteredServer {
  current: ServerBinding;
  /**
   * Registered capabilities by tool name: whether read-only, the canonical JSON of the input schema, the hash of the
   * accepted definition and the capability's version (increased each time a re-registration accepts a change).
   */
  tools: Map<string, { readOnly: boolean; inputSchema: string; hash: string; version: number }>;
}

/** The servers registered on each registry, by name. */
export const REGISTERED = new WeakMap<CapabilityRegistry, Map<string, RegisteredServer>>();

/** Closes a replaced binding's session once no call runs on it (waiting at most its call timeout and a second). */
export async function closeWhenIdle(binding: ServerBinding): Promise<void> {
  const deadline = Date.now() + binding.callTimeoutMs + 1000;
  while (binding.calls.size > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50).unref?.());
  await binding.session.close();
}
