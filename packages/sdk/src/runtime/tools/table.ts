// The table of the runtime's own tools.
import type { ModelTool } from '../../models/types';
import type { RunRecord } from '../../core/run-records';
import type { RuntimeTool } from './runtime-tool';

/**
 * The runtime's own tools, in the order they are offered (`update_plan`, `search_tools`,
 * `read_tool_result`, `delegate`): looked up by name when the model calls one, never through the
 * capability registry.
 */
export class RuntimeToolTable {
  readonly #tools: readonly RuntimeTool[];
  readonly #byName: ReadonlyMap<string, RuntimeTool>;

  /** @param tools - the rows, in offer order (names unique) */
  constructor(tools: readonly RuntimeTool[]) {
    this.#tools = tools;
    this.#byName = new Map(tools.map((t) => [t.name, t]));
    if (this.#byName.size !== tools.length) throw new Error('runtime tool names must be unique');
  }

  /** The tool with this name, or undefined. */
  get(name: string): RuntimeTool | undefined {
    return this.#byName.get(name);
  }

  /** True when the runtime answers calls of this name itself. */
  has(name: string): boolean {
    return this.#byName.has(name);
  }

  /** Definitions of the tools the run may use, in offer order (with the discovery-only ones). */
  available(run: RunRecord): ModelTool[] {
    return this.#tools.filter((t) => t.available(run)).map((t) => t.modelTool);
  }

  /** Definitions of the tools offered without a tool discovery. */
  offered(run: RunRecord): ModelTool[] {
    return this.#tools.filter((t) => !t.discoveryOnly && t.available(run)).map((t) => t.modelTool);
  }
}
