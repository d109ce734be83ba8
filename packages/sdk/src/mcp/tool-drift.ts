// Tool drift of a consumed MCP server: what the host accepted at registration (a fingerprint per tool), compared with
// what the server lists later (after `notifications/tools/list_changed`, after a new session). A changed or removed
// tool is disabled until the server is registered again; a new tool is reported, never added silently.
import { canonicalHash } from '../core/canonical-json';
import type { JsonValue } from '../core/records';
import { McpToolChangedError } from './consume-errors';

/** An MCP tool as `tools/list` gives it. */
export interface ListedTool {
  name: string;
  title?: string;
  description?: string;
  inputSchema: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
  annotations?: Record<string, unknown>;
}

/**
 * A part of an MCP tool's definition the host accepted at registration: `inputSchema`, `outputSchema`,
 * `description`, `title` or `annotations`.
 * @public
 */
export type McpToolField = 'inputSchema' | 'outputSchema' | 'description' | 'title' | 'annotations';

const FIELDS: readonly McpToolField[] = ['inputSchema', 'outputSchema', 'description', 'title', 'annotations'];

/**
 * A change of a consumed MCP server's tool list against what the host accepted at registration.
 *
 * - `changed`: the tool is listed with another input or output schema, description, title or annotations
 *   (`fields` names which); its capability is disabled (calls fail `MCP_TOOL_CHANGED`, nothing sent).
 * - `removed`: the tool is no longer listed; its capability is disabled (calls fail `MCP_TOOL_REMOVED`).
 * - `added`: a tool the host never registered is listed; it is not registered (no capability).
 *
 * Register the server again (`registerMcpServer` with the same name) to accept the change: a changed tool's
 * capability is replaced by the new definition (input schema, title, description) under a version one higher.
 * @public
 */
export interface McpToolChange {
  /** `changed`, `removed` or `added`. */
  change: 'changed' | 'removed' | 'added';
  /** The server's registration name. */
  server: string;
  /** The tool's name on the server. */
  tool: string;
  /** Its capability id, `mcp.<server>.<tool>` (for an added tool, the id it would get). */
  capabilityId: string;
  /** What differs from the accepted definition (`changed`); empty otherwise. */
  fields: McpToolField[];
  /** SHA-256 (hex) of the accepted definition (canonical JSON); absent for an added tool. */
  acceptedHash?: string;
  /** SHA-256 (hex) of the definition listed now; absent for a removed tool. */
  listedHash?: string;
}

/** What the host accepted of one tool: the hash of the whole definition and of each field. */
export interface McpToolFingerprint {
  hash: string;
  fields: Record<McpToolField, string>;
}

/**
 * The fingerprint of a listed tool: SHA-256 of the canonical JSON (sorted keys, no whitespace) of its name, input
 * schema, output schema, description, title and annotations, and of each of them alone (a missing one hashes as null).
 */
export function mcpToolFingerprint(tool: ListedTool): McpToolFingerprint {
  const parts = {
    inputSchema: tool.inputSchema ?? null,
    outputSchema: tool.outputSchema ?? null,
    description: tool.description ?? null,
    title: tool.title ?? null,
    annotations: tool.annotations ?? null,
  };
  const fields = {} as Record<McpToolField, string>;
  for (const field of FIELDS) fields[field] = canonicalHash(parts[field]);
  return { hash: canonicalHash({ name: tool.name, ...parts }), fields };
}

/** What the watch needs from its registration. */
export interface McpToolWatchOptions {
  server: string;
  /** Lists the server's tools now (every page), over the current session. */
  list: () => Promise<ListedTool[]>;
  /**
   * Reports a change of a registered tool (`changed`, `removed`): raises the decision, calls the host's callback.
   * @throws when the decision could not be raised: the change is reported again at the next check
   */
  report: (change: McpToolChange) => Promise<void>;
  /**
   * Reports the new tools of one listing (`added`, in listing order, at least one) together: one decision.
   * @throws when the decision could not be raised: they are reported again at the next check
   */
  reportAdded: (changes: readonly McpToolChange[]) => Promise<void>;
}

/**
 * The accepted tools of one registered server and the ones disabled since. {@link McpToolWatch.stale} is set by a
 * `notifications/tools/list_changed` and by a new session; the next {@link McpToolWatch.guard} (before a call is sent)
 * lists the tools again first, and the notification starts a listing at once (so a change is reported without a call).
 */
export class McpToolWatch {
  readonly #options: McpToolWatchOptions;
  readonly #accepted = new Map<string, McpToolFingerprint>();
  readonly #disabled = new Map<string, McpToolChange>();
  readonly #reported = new Set<string>();
  #stale = false;
  /** Bumped by every {@link McpToolWatch.markStale}: a listing that began before a later mark does not clear it. */
  #generation = 0;
  #checking: Promise<void> | undefined;
  #retired = false;
  /** The new tools of the last listing. */
  #listedNew: McpToolChange[] = [];
  /** A report failed: the next {@link McpToolWatch.guard} lists again (and reports what is still unreported). */
  #unreported = false;

  constructor(options: McpToolWatchOptions, accepted: readonly ListedTool[]) {
    this.#options = options;
    for (const tool of accepted) this.#accepted.set(tool.name, mcpToolFingerprint(tool));
  }

  /** Whether the tool list must be listed again before the next call. */
  get stale(): boolean {
    return this.#stale;
  }

  /** The changes that disabled tools, by tool name. */
  get disabled(): ReadonlyMap<string, McpToolChange> {
    return this.#disabled;
  }

  /** The accepted fingerprint of a tool. */
  accepted(tool: string): McpToolFingerprint | undefined {
    return this.#accepted.get(tool);
  }

  /** Disables a tool (registered earlier, no longer listed) without reporting it again. */
  disable(change: McpToolChange): void {
    this.#disabled.set(change.tool, change);
    this.#reported.add(reportKey(change));
  }

  /** The registration was replaced: this watch reports nothing more. */
  retire(): void {
    this.#retired = true;
  }

  /**
   * The server's tool list may have changed: list again before the next call.
   * @param now - also start listing now (a notification), its failure left for the next call
   */
  markStale(now: boolean): void {
    if (this.#retired) return;
    this.#stale = true;
    this.#generation++;
    if (now) this.check().catch(() => undefined);
  }

  /**
   * Lists the tools and applies the differences (one listing at a time; a mark made meanwhile lists again).
   * @throws whatever listing throws (the list stays stale)
   */
  async check(): Promise<void> {
    while (this.#stale && !this.#retired) {
      if (!this.#checking) {
        const generation = this.#generation;
        this.#checking = (async () => {
          try {
            const listed = await this.#options.list();
            const reported = await this.#apply(listed);
            if (this.#generation === generation) {
              this.#stale = false;
              this.#unreported = !reported;
            }
          } finally {
            this.#checking = undefined;
          }
        })();
      }
      await this.#checking;
    }
  }

  /**
   * Before a call of `tool` is sent: lists again when stale, then refuses a disabled tool.
   * @throws {@link McpToolChangedError} `MCP_TOOL_CHANGED` (changed, or its list could not be checked) or
   *   `MCP_TOOL_REMOVED`; nothing was sent
   */
  async guard(tool: string): Promise<void> {
    if (this.#unreported && !this.#retired) {
      this.#unreported = false;
      this.#stale = true;
    }
    if (this.#stale)
      try {
        await this.check();
      } catch (error) {
        if (!this.#disabled.has(tool)) throw McpToolChangedError.unverified(this.#options.server, tool, error);
      }
    const change = this.#disabled.get(tool);
    if (change) throw new McpToolChangedError(change);
  }

  /**
   * Lists the tools now and applies the drift rules (disabling, reporting), whether or not a change was announced;
   * accepts nothing.
   * @returns every change against what was accepted, as listed now: the disabled tools and the new ones
   * @throws whatever listing throws (nothing changed; the next call lists again first)
   */
  async recheck(): Promise<McpToolChange[]> {
    if (this.#retired) return [];
    this.markStale(false);
    await this.check();
    return [...this.#disabled.values(), ...this.#listedNew];
  }

  #added(listed: readonly ListedTool[]): McpToolChange[] {
    const { server } = this.#options;
    return listed
      .filter((tool) => !this.#accepted.has(tool.name))
      .map((tool) => ({
        change: 'added' as const,
        server,
        tool: String(tool.name).slice(0, 200),
        capabilityId: `mcp.${server}.${String(tool.name).slice(0, 120)}`,
        fields: [],
        listedHash: mcpToolFingerprint(tool).hash,
      }));
  }

  /** @returns whether every change was reported (a failed report is tried again at the next check) */
  async #apply(listed: readonly ListedTool[]): Promise<boolean> {
    if (this.#retired) return true;
    const { server } = this.#options;
    const now = new Map(listed.map((t) => [t.name, t]));
    const changes: McpToolChange[] = [];
    for (const [name, accepted] of this.#accepted) {
      const capabilityId = `mcp.${server}.${name}`;
      const tool = now.get(name);
      if (!tool) {
        changes.push({ change: 'removed', server, tool: name, capabilityId, fields: [], acceptedHash: accepted.hash });
        continue;
      }
      const print = mcpToolFingerprint(tool);
      if (print.hash === accepted.hash) continue;
      const fields = FIELDS.filter((f) => print.fields[f] !== accepted.fields[f]);
      changes.push({
        change: 'changed',
        server,
        tool: name,
        capabilityId,
        fields,
        acceptedHash: accepted.hash,
        listedHash: print.hash,
      });
    }
    let reported = true;
    for (const change of changes) {
      // A disabled tool stays disabled (also when the server lists the accepted definition again): only a new
      // registration enables it. A change is reported once (a tool that changes again is reported again); a report
      // that failed is tried again at the next check.
      if (!this.#disabled.has(change.tool)) this.#disabled.set(change.tool, change);
      const key = reportKey(change);
      if (this.#reported.has(key)) continue;
      try {
        await this.#options.report(change);
        this.#reported.add(key);
      } catch {
        reported = false;
      }
    }
    // New tools are reported together, once per listing that lists some not reported yet (a server that lists fresh
    // names each time raises one report per listing, never one per name).
    this.#listedNew = this.#added([...now.values()]);
    const added = this.#listedNew.filter((change) => !this.#reported.has(reportKey(change)));
    if (added.length > 0)
      try {
        await this.#options.reportAdded(added);
        for (const change of added) this.#reported.add(reportKey(change));
      } catch {
        reported = false;
      }
    return reported;
  }
}

function reportKey(change: McpToolChange): string {
  return `${change.change}:${change.tool}:${change.listedHash ?? change.acceptedHash}`;
}

/** The evidence of a decision about a change (JSON). */
export function changeEvidence(change: McpToolChange): Record<string, JsonValue> {
  return {
    server: change.server,
    tool: change.tool,
    capabilityId: change.capabilityId,
    change: change.change,
    fields: change.fields,
    ...(change.acceptedHash ? { acceptedHash: change.acceptedHash } : {}),
    ...(change.listedHash ? { listedHash: change.listedHash } : {}),
  };
}

/** Words for a change, for a decision's reason and an error message. */
export function describeChange(change: McpToolChange): string {
  const { server, tool } = change;
  switch (change.change) {
    case 'changed':
      return `MCP server ${server} changed tool ${tool} after it was registered (${change.fields.join(', ')} differ from what was accepted); its capability ${change.capabilityId} is disabled until the server is registered again`;
    case 'removed':
      return `MCP server ${server} no longer lists tool ${tool}; its capability ${change.capabilityId} is disabled until the server is registered again`;
    default:
      return `MCP server ${server} lists a new tool ${tool}, which is not registered; register the server again to add it`;
  }
}
