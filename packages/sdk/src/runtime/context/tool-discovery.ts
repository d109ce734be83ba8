// Tool discovery under a token budget: the first model call
// offers a ranked selection, `search_tools` finds more, and extra tool schemas share one budget.
import { searchCapabilities } from '../../capabilities/capability-search';
import { modelInputSchemaOf, providerSafeTool } from '../../models/provider-schema';
import type { CapabilityDescriptor } from '../../core/capability-descriptor';
import { MediaAgentError } from '../../core/errors';
import type { TokenCounter } from '../../models/token-counter';
import type { ModelTool } from '../../models/types';

/** Name of the discovery tool (`search_tools(search, limit)`). @public */
export const SEARCH_TOOLS_TOOL = 'search_tools';

/**
 * The context window assumed when the model's window is not known, in tokens: 128 000, the window
 * of the common current models (GPT-4o, Llama 3.1, Mistral Large); a larger model window only
 * leaves room unused. Used by the host options, tool discovery and compaction alike.
 * @public
 */
export const DEFAULT_CONTEXT_WINDOW_TOKENS = 128_000;

/**
 * Defaults of {@link ToolDiscovery}. Every one is configurable through
 * {@link ToolDiscoveryOptions}.
 * @public
 */
export const TOOL_DISCOVERY_DEFAULTS = Object.freeze({
  /** Most results one `search_tools` call returns (seed: 每次最多返回 8 个匹配工具). */
  maxResultsPerSearch: 8,
  /** Extra candidates kept, most recent first (seed: 保留最近 16 个额外工具候选). */
  maxCandidates: 16,
  /** Ceiling of the extra-schema budget, in tokens (seed: 最多 4096 tokens). */
  extraBudgetTokens: 4096,
  /** Share of the window the extra-schema budget may not exceed (seed: 不超过已知模型窗口 10%). */
  extraBudgetWindowShare: 0.1,
  /** Share of the window kept free of input (seed: 总输入保留 15% 余量). */
  reserveWindowShare: 0.15,
});

/**
 * The `search_tools` tool as offered to the model. Input `{ search: string, limit?: integer 1–8 }`.
 * Answer it with {@link ToolDiscovery.search}; the matches are enabled on the next model call when
 * they fit the budget (the report of that call says which). Its schema is in the form every provider
 * family accepts (`providerSafeTool`); arguments are validated against the full schema.
 * @public
 */
export const SEARCH_TOOLS_MODEL_TOOL: ModelTool = Object.freeze(
  providerSafeTool({
    name: SEARCH_TOOLS_TOOL,
    description:
      'Find more tools of this run by id, title, description, tags or aliases (English or Chinese, e.g. "organize" or "整理"). Returns at most 8 candidates; matching tools become callable on your next turn if they fit the tool budget, and that turn says which were enabled. A search that matches nothing does not list all tools: try other words.',
    inputSchema: {
      type: 'object',
      properties: {
        search: {
          type: 'string',
          minLength: 1,
          maxLength: 500,
          description: 'Words to look for: a tool id, a task, a tag or an alias.',
        },
        limit: { type: 'integer', minimum: 1, maximum: 8, description: 'Most candidates to return (default 8).' },
      },
      required: ['search'],
      additionalProperties: false,
    },
  } as ModelTool),
);

/**
 * Options of {@link ToolDiscovery}. Token figures are in tokens, shares are fractions of the window.
 * @public
 */
export interface ToolDiscoveryOptions {
  /**
   * How many capabilities the first model call offers, ranked against the goal. `0` offers every capability of the catalog on every call and disables discovery.
   */
  maxTools: number;
  /** Counts tool schemas (the JSON of each tool definition) and the request. */
  counter: TokenCounter;
  /** Model id, selects the encoding. */
  model?: string;
  /** The model's context window in tokens (default {@link DEFAULT_CONTEXT_WINDOW_TOKENS}). */
  contextWindowTokens?: number;
  /**
   * Tools offered on every call whatever the selection: the driver's `update_plan`, `search_tools`,
   * `read_tool_result`. With `maxTools: 0` a `search_tools` entry here is left out (nothing to discover).
   */
  alwaysOn?: readonly ModelTool[];
  /** Most results per `search_tools` call (default 8). */
  maxResultsPerSearch?: number;
  /** Extra candidates kept (default 16). */
  maxCandidates?: number;
  /** Ceiling of the extra-schema budget in tokens (default 4096). */
  extraBudgetTokens?: number;
  /** Share of the window the extra-schema budget may not exceed (default 0.1). */
  extraBudgetWindowShare?: number;
  /** Share of the window kept free of input (default 0.15). */
  reserveWindowShare?: number;
}

/**
 * Why a candidate is not offered on the next call.
 *
 * - `over_budget`: its schema does not fit what is left of the extra-schema budget
 *   (min(4096 tokens, 10% of the window));
 * - `reserve`: it would push the request into the 15% of the window kept in reserve;
 * - `unavailable`: the capability is no longer in this run's catalog (unregistered, or not permitted).
 *
 * @public
 */
export type ToolNotEnabledReason = 'over_budget' | 'reserve' | 'unavailable';

/** One candidate of a {@link ToolDiscoveryReport}. @public */
export interface ToolCandidateReport {
  /** Capability id. */
  id: string;
  /** Tokens of its tool definition (JSON); 0 when unavailable. */
  tokens: number;
}

/**
 * Which extra candidates the next model call carries and why others not.
 * @public
 */
export interface ToolDiscoveryReport {
  /** Candidates offered on this call, in priority order (most recently discovered first). */
  enabled: ToolCandidateReport[];
  /** Candidates left out, with the reason. */
  notEnabled: Array<ToolCandidateReport & { reason: ToolNotEnabledReason }>;
  /** The extra-schema budget of this call: min(ceiling, window share), in tokens. */
  budgetTokens: number;
  /** Tokens the enabled candidates use. */
  usedTokens: number;
  /** Tokens kept in reserve (15% of the window). */
  reserveTokens: number;
  /** Tokens of the request without the extra candidates (as passed to {@link ToolDiscovery.toolsForNextCall}). */
  requestTokens: number;
}

/** What the driver sends on the next model call. @public */
export interface ToolsForCall {
  /** Tools to send: always-on, the initial selection, then the enabled candidates (no duplicates). */
  tools: ModelTool[];
  /** The candidate report (empty lists when there are no candidates, `undefined` with `maxTools: 0`). */
  report: ToolDiscoveryReport | undefined;
  /**
   * A short text for the model, present when a search found candidates since the previous call or
   * the report changed (the budget enabled or dropped a candidate). Put it in this call, e.g. as a system note.
   */
  note: string | undefined;
}

/** One match of a `search_tools` call. @public */
export interface ToolSearchMatch {
  /** Capability id (the tool name). */
  name: string;
  /** Title. */
  title: string;
  /** Description. */
  description: string;
  /** `offered`: already callable (initial selection); `candidate`: enabled on the next call if it fits the budget. */
  status: 'offered' | 'candidate';
}

/** The output of one `search_tools` call (send it as the tool result's output). @public */
export interface ToolSearchOutput {
  /** The query as given. */
  search: string;
  /** Matches, best first, at most the per-call limit. */
  matches: ToolSearchMatch[];
  /** What happens next, for the model. */
  note: string;
}

/**
 * Serializable discovery state for crash resume (see {@link ToolDiscovery.toJSON}).
 * @public
 */
export interface ToolDiscoveryState {
  /** Format version. */
  version: 1;
  /** The goal the selection was ranked against. */
  goal: string;
  /** Ids of the initial selection. */
  selected: string[];
  /** Extra candidates, most recent first. */
  candidates: string[];
  /** Fingerprint of the last report sent (decides whether the next call gets a note). */
  lastReport: string;
  /** A search found candidates since the last call (the next call gets a note). */
  searched: boolean;
}

/** `search_tools` called with input that is not `{ search: string, limit?: 1–8 }`. @public */
export class ToolSearchInputError extends MediaAgentError {
  /** @param message - what is wrong with the input */
  constructor(message: string) {
    super('TOOL_SEARCH_INPUT_INVALID', message);
  }
}

/**
 * The tool definition the model sees for a capability (same shape the run driver builds).
 *
 * @remarks
 * The schema sent is the descriptor's `modelInputSchema`: the input schema itself when Anthropic,
 * OpenAI and Gemini accept it unchanged, else its provider-safe rewrite (see `checkProviderSchema`;
 * e.g. a root union of objects becomes one object). A rewritten tool carries the original input
 * schema as `validationSchema`, so the model's arguments are still checked against the capability's
 * own schema at `tool_call_end` (and again by the invocation path before the handler runs).
 * A descriptor built by hand, without `modelInputSchema`, gets it derived from `input` (cached).
 *
 * @param d - the capability
 * @returns `{ name: id, description, inputSchema: modelInputSchema }`, plus `validationSchema: input` when they differ
 * @public
 */
export function capabilityModelTool(d: CapabilityDescriptor): ModelTool {
  const input = d.input as unknown as Record<string, unknown>;
  const model = (d.modelInputSchema ?? modelInputSchemaOf(d.input)) as Record<string, unknown>;
  return model === input
    ? { name: d.id, description: d.description, inputSchema: input }
    : { name: d.id, description: d.description, inputSchema: model, validationSchema: input };
}

/**
 * Tool discovery of one user request.
 *
 * @remarks
 * With `maxTools > 0` the first call offers only the `maxTools` capabilities ranked best against the
 * goal ({@link searchCapabilities}), plus the always-on tools. `search_tools` ({@link ToolDiscovery.search}) finds
 * more in the same catalog: at most 8 per call; the 16 most recent extra candidates are kept and a
 * re-discovered one moves to the front; no match never expands to all tools. Before each call
 * {@link ToolDiscovery.toolsForNextCall} enables candidates in priority order while their schemas (the JSON of each
 * tool definition, counted with the {@link TokenCounter}) fit min(4096 tokens, 10% of the window) and
 * the request stays below 85% of the window (15% reserve), and reports the rest with a reason.
 *
 * Discovery never widens authorization: it searches only the catalog it is given (the capabilities
 * the run's mode and allowlist permit) and only changes what is offered; every call still goes
 * through the invocation path. A new user request starts over with {@link ToolDiscovery.select}.
 *
 * @public
 */
export class ToolDiscovery {
  readonly #catalog = new Map<string, CapabilityDescriptor>();
  readonly #tokens = new Map<string, number>();
  readonly #o: Required<Omit<ToolDiscoveryOptions, 'model' | 'alwaysOn'>> & {
    model: string | undefined;
    alwaysOn: readonly ModelTool[];
  };
  #goal = '';
  #selected: string[] = [];
  #candidates: string[] = [];
  #lastReport = '';
  #searched = false;

  /**
   * @param catalog - the capabilities this run may be offered (already filtered by mode and allowlist)
   * @param options - `maxTools`, counter, window, always-on tools and limits
   * @throws `RangeError` for a negative or fractional `maxTools`
   */
  constructor(catalog: readonly CapabilityDescriptor[], options: ToolDiscoveryOptions) {
    if (!Number.isInteger(options.maxTools) || options.maxTools < 0)
      throw new RangeError(`maxTools must be a non-negative integer, got ${options.maxTools}`);
    for (const d of catalog) this.#catalog.set(d.id, d);
    const d = TOOL_DISCOVERY_DEFAULTS;
    this.#o = {
      maxTools: options.maxTools,
      counter: options.counter,
      model: options.model,
      contextWindowTokens: options.contextWindowTokens ?? DEFAULT_CONTEXT_WINDOW_TOKENS,
      alwaysOn: options.alwaysOn ?? [],
      maxResultsPerSearch: options.maxResultsPerSearch ?? d.maxResultsPerSearch,
      maxCandidates: options.maxCandidates ?? d.maxCandidates,
      extraBudgetTokens: options.extraBudgetTokens ?? d.extraBudgetTokens,
      extraBudgetWindowShare: options.extraBudgetWindowShare ?? d.extraBudgetWindowShare,
      reserveWindowShare: options.reserveWindowShare ?? d.reserveWindowShare,
    };
  }

  /**
   * Restores a discovery saved with {@link ToolDiscovery.toJSON}. Ids no longer in `catalog` stay as candidates and
   * are reported `unavailable`; selected ids no longer in it are dropped.
   * @param state - the saved state
   * @param catalog - the run's catalog now
   * @param options - as for the constructor
   * @returns the restored discovery
   */
  static fromJSON(
    state: ToolDiscoveryState,
    catalog: readonly CapabilityDescriptor[],
    options: ToolDiscoveryOptions,
  ): ToolDiscovery {
    const d = new ToolDiscovery(catalog, options);
    d.#goal = state.goal;
    d.#selected = state.selected.filter((id) => d.#catalog.has(id));
    d.#candidates = state.candidates.slice(0, d.#o.maxCandidates);
    d.#lastReport = state.lastReport;
    d.#searched = state.searched === true;
    return d;
  }

  /** The state to save for crash resume (plain JSON). */
  toJSON(): ToolDiscoveryState {
    return {
      version: 1,
      goal: this.#goal,
      selected: [...this.#selected],
      candidates: [...this.#candidates],
      lastReport: this.#lastReport,
      searched: this.#searched,
    };
  }

  /** True when discovery is on (`maxTools > 0`). */
  get enabled(): boolean {
    return this.#o.maxTools > 0;
  }

  /** Ids of the initial selection. */
  get selected(): readonly string[] {
    return this.#selected;
  }

  /** Ids of the extra candidates, most recent first (at most `maxCandidates`). */
  get candidates(): readonly string[] {
    return this.#candidates;
  }

  /**
   * Starts a user request: ranks the catalog against `goal` and keeps the best `maxTools` as the
   * initial selection; forgets earlier candidates. Capabilities that
   * do not match the goal at all are not selected (the model finds them with `search_tools`).
   * @param goal - the user's request
   * @returns the selected ids, best first
   */
  select(goal: string): readonly string[] {
    this.#goal = goal;
    this.#candidates = [];
    this.#lastReport = '';
    this.#searched = false;
    this.#selected = this.enabled
      ? searchCapabilities([...this.#catalog.values()], goal, this.#o.maxTools).map((h) => h.capability.id)
      : [];
    return this.#selected;
  }

  /**
   * Answers one `search_tools` call: ranks the catalog (id, title, description, tags, aliases,
   * CJK aliases) and records the matches not already offered as candidates, the best one first;
   * candidates beyond `maxCandidates` (the oldest) are forgotten. A query that matches nothing
   * returns no matches — never the whole catalog.
   * @param search - the query
   * @param limit - most matches, clamped to 1…`maxResultsPerSearch` (default the maximum, 8)
   * @returns the matches and a note for the model
   * @throws {@link ToolSearchInputError} (`TOOL_SEARCH_INPUT_INVALID`) when `search` is not a string
   */
  search(search: string, limit?: number): ToolSearchOutput {
    if (typeof search !== 'string') throw new ToolSearchInputError('search must be a string');
    const max = this.#o.maxResultsPerSearch;
    const n = limit === undefined || !Number.isFinite(limit) ? max : Math.min(max, Math.max(1, Math.floor(limit)));
    const hits = search.trim() ? searchCapabilities([...this.#catalog.values()], search, n) : [];
    const offered = new Set(this.#selected);
    const matches: ToolSearchMatch[] = hits.map(({ capability: c }) => ({
      name: c.id,
      title: c.title,
      description: c.description,
      status: !this.enabled || offered.has(c.id) ? 'offered' : 'candidate',
    }));
    const found = matches.filter((m) => m.status === 'candidate').map((m) => m.name);
    if (found.length > 0) this.#searched = true;
    if (found.length > 0)
      this.#candidates = [...found, ...this.#candidates.filter((id) => !found.includes(id))].slice(
        0,
        this.#o.maxCandidates,
      );
    const note =
      matches.length === 0
        ? `No tool matches "${search}". The full tool list is not expanded; search again with other words (an id, a task, a tag or an alias).`
        : found.length > 0
          ? 'Candidates become callable on your next turn if they fit the tool budget; that turn reports which were enabled.'
          : 'These tools are already callable.';
    return { search, matches, note };
  }

  /**
   * Answers a `search_tools` tool call from its (unvalidated) input.
   * @param input - the call's input, `{ search: string, limit?: integer 1–8 }`
   * @returns as {@link ToolDiscovery.search}
   * @throws {@link ToolSearchInputError} (`TOOL_SEARCH_INPUT_INVALID`) for a malformed input
   */
  searchFromInput(input: unknown): ToolSearchOutput {
    const o = (input ?? {}) as { search?: unknown; limit?: unknown };
    if (typeof o.search !== 'string' || !o.search.trim())
      throw new ToolSearchInputError('search must be a non-empty string');
    if (
      o.limit !== undefined &&
      (typeof o.limit !== 'number' ||
        !Number.isInteger(o.limit) ||
        o.limit < 1 ||
        o.limit > this.#o.maxResultsPerSearch)
    )
      throw new ToolSearchInputError(`limit must be an integer from 1 to ${this.#o.maxResultsPerSearch}`);
    return this.search(o.search, o.limit as number | undefined);
  }

  /** Tokens of one tool definition: the JSON of what is sent (name, description, input schema), counted with the counter (cached per id). */
  #cost(tool: ModelTool): number {
    let n = this.#tokens.get(tool.name);
    if (n === undefined) {
      n = this.#o.counter.count(
        JSON.stringify({ name: tool.name, description: tool.description, inputSchema: tool.inputSchema }),
        this.#o.model,
      );
      this.#tokens.set(tool.name, n);
    }
    return n;
  }

  /**
   * The tools every call carries whatever the budget, without side effects: the always-on tools and
   * the initial selection (with `maxTools: 0`, every catalog capability and the always-on tools except
   * `search_tools`). Pass them to `compact` so its accounting includes them.
   * @returns tool definitions, no duplicates
   */
  baseTools(): ModelTool[] {
    if (!this.enabled)
      return [
        ...[...this.#catalog.values()].map(capabilityModelTool),
        ...this.#o.alwaysOn.filter((t) => t.name !== SEARCH_TOOLS_TOOL),
      ];
    const out = new Map<string, ModelTool>();
    for (const t of this.#o.alwaysOn) if (!out.has(t.name)) out.set(t.name, t);
    for (const id of this.#selected) {
      const d = this.#catalog.get(id);
      if (d && !out.has(id)) out.set(id, capabilityModelTool(d));
    }
    return [...out.values()];
  }

  /**
   * The tools of the next model call and the candidate report.
   *
   * @remarks
   * With `maxTools: 0` every catalog capability plus the always-on tools (without `search_tools`).
   * Otherwise the always-on tools, the initial selection, then candidates in priority order while
   * each one's schema fits the remaining budget: min(`extraBudgetTokens`, `extraBudgetWindowShare` ×
   * window), and `requestTokens` + enabled schemas ≤ (1 − `reserveWindowShare`) × window. A candidate
   * that does not fit is skipped (a smaller later one may still fit) and reported with its reason.
   *
   * @param context - `requestTokens`: tokens of the request without the extra candidates (system,
   *   messages, {@link ToolDiscovery.baseTools}) — e.g. `compact(...).tokensAfter` —, or `messages` (system included)
   *   to have them counted here with the base tools; neither means 0
   * @returns tools, report and a note when the report changed since the last call
   */
  toolsForNextCall(
    context: { requestTokens?: number; messages?: Parameters<TokenCounter['countRequest']>[0] } = {},
  ): ToolsForCall {
    if (!this.enabled) return { tools: this.baseTools(), report: undefined, note: undefined };
    const tools = this.baseTools();
    const names = new Set(tools.map((t) => t.name));
    const add = (t: ModelTool) => {
      names.add(t.name);
      tools.push(t);
    };
    const window = this.#o.contextWindowTokens;
    const budgetTokens = Math.floor(Math.min(this.#o.extraBudgetTokens, this.#o.extraBudgetWindowShare * window));
    const reserveTokens = Math.ceil(this.#o.reserveWindowShare * window);
    const requestTokens =
      context.requestTokens ??
      (context.messages ? this.#o.counter.countRequest(context.messages, tools, this.#o.model) : 0);
    const report: ToolDiscoveryReport = {
      enabled: [],
      notEnabled: [],
      budgetTokens,
      usedTokens: 0,
      reserveTokens,
      requestTokens,
    };
    for (const id of this.#candidates) {
      const d = this.#catalog.get(id);
      if (!d) {
        report.notEnabled.push({ id, tokens: 0, reason: 'unavailable' });
        continue;
      }
      if (names.has(id)) continue;
      const tool = capabilityModelTool(d);
      const tokens = this.#cost(tool);
      if (report.usedTokens + tokens > budgetTokens) report.notEnabled.push({ id, tokens, reason: 'over_budget' });
      else if (requestTokens + report.usedTokens + tokens > window - reserveTokens)
        report.notEnabled.push({ id, tokens, reason: 'reserve' });
      else {
        report.enabled.push({ id, tokens });
        report.usedTokens += tokens;
        add(tool);
      }
    }
    const fingerprint = JSON.stringify([
      report.enabled.map((e) => e.id),
      report.notEnabled.map((e) => [e.id, e.reason]),
    ]);
    const changed =
      this.#searched ||
      (fingerprint !== this.#lastReport &&
        (report.enabled.length > 0 || report.notEnabled.length > 0 || this.#lastReport !== ''));
    this.#lastReport = fingerprint;
    this.#searched = false;
    return { tools, report, note: changed ? formatToolDiscoveryReport(report) : undefined };
  }
}

const REASON_TEXT: Record<ToolNotEnabledReason, string> = {
  over_budget: 'its schema does not fit the remaining tool budget',
  reserve: 'the request would enter the context reserve',
  unavailable: 'it is no longer available in this run',
};

/**
 * A short text for the model stating which discovered tools are enabled on this call and why others
 * are not.
 * @param report - the report of {@link ToolDiscovery.toolsForNextCall}
 * @returns one paragraph, a few lines
 * @public
 */
export function formatToolDiscoveryReport(report: ToolDiscoveryReport): string {
  const lines = [`Tool discovery: extra tool budget ${report.usedTokens}/${report.budgetTokens} tokens.`];
  lines.push(
    report.enabled.length > 0
      ? `Enabled now: ${report.enabled.map((e) => e.id).join(', ')}.`
      : 'No discovered tool is enabled.',
  );
  for (const e of report.notEnabled)
    lines.push(
      `Not enabled: ${e.id} (${e.reason}: ${REASON_TEXT[e.reason]}${e.tokens ? `, ${e.tokens} tokens` : ''}).`,
    );
  return lines.join('\n');
}
