// The "current runtime" the evaluation command line replays and describes stored runs with: a host of its own
// (memory storage, manual clock, no model) whose registry holds the SDK's standard capability definitions over the
// sandbox world, or the registry a scenario module builds.
import { createAgentHost } from '../../composition/container';
import { type CapabilityRegistry, hostCodeCalls } from '../../capabilities/capability-registry';
import type { ModelProvider } from '../../models/types';
import { DEFAULT_IDENTITY_RESOLVER, type IdentityResolver } from '../../ports/identity';
import { ScriptedProvider } from '../../models/scripted';
import { ManualClock } from '../../ports/clock';
import { SequentialIdGenerator } from '../../ports/id-generator';
import { ConsoleLogger } from '../../ports/logger';
import type { AgentHost } from '../../runtime/agent-host';
import { MemoryStorage } from '../../storage/memory/memory-storage';
import { registerSandboxCapabilities } from '../sandbox/capabilities';
import { SandboxWorld } from '../sandbox/world';
import type { AnyEvalScenario, EvalHost, ScenarioContext } from './scenario';

/** The runtime a stored run is described and replayed with. @public */
export interface EvalRuntime {
  /** Its capability registry (what "the current runtime" offers). */
  capabilities: CapabilityRegistry;
  /** Its run settings: the first scenario's `runs` options, else none (the SDK's defaults). */
  settings: NonNullable<AnyEvalScenario['runs']>;
  /** Roles of actors as it resolves them: the SDK's default (every `user:*` actor is an administrator). */
  identity: IdentityResolver;
  /** Calls its model provider received so far (a replay must add none). */
  modelCalls: () => number;
  /** Capability handlers and verifiers its registry started so far (a replay must add none). */
  handlerCalls: () => number;
  /** Where the registry comes from, for reports: `sandbox` or `scenario <id>`. */
  source: string;
  /** Stops the host behind it. */
  close: () => Promise<void>;
}

/**
 * Builds the current runtime: with no scenario, a host whose registry holds the 15 standard capabilities over a
 * sandbox world (their definitions: schemas, kinds, replay rules, targets); with scenarios (from `--scenarios`
 * modules), the first one's own host when it builds one (`host`), else the sandbox host after that scenario's
 * `setup` ran (which registers its plugin capabilities). Nothing is stored outside the host's memory storage.
 * @param scenarios - the scenarios of the `--scenarios` modules, in order (may be empty)
 * @returns the runtime; close it when done
 * @public
 */
export async function buildEvalRuntime(scenarios: readonly AnyEvalScenario[] = []): Promise<EvalRuntime> {
  const clock = new ManualClock(Date.UTC(2026, 0, 5, 12));
  const scripted = new ScriptedProvider({ scripts: [] });
  let modelCalls = 0;
  const provider: ModelProvider = {
    id: scripted.id,
    stream: (request, signal) => {
      modelCalls++;
      return scripted.stream(request, signal);
    },
  };
  const hostOptions = {
    storage: new MemoryStorage(),
    clock,
    ids: new SequentialIdGenerator(),
    logger: new ConsoleLogger('silent'),
    model: { provider },
    runs: { pollMs: 5, goalPollSec: 1, middleware: [] },
  };
  const scenario = scenarios[0];
  let own: EvalHost | undefined;
  let host: AgentHost;
  if (scenario?.host) {
    own = await scenario.host({ clock, seed: 0, options: hostOptions });
    host = own.host;
  } else {
    const world = new SandboxWorld({ clock });
    host = createAgentHost({ ...hostOptions, goalFacts: world });
    registerSandboxCapabilities(host, world);
    if (scenario?.setup) {
      await host.start();
      const ctx: ScenarioContext = { host, world, clock, seed: 0, hostState: undefined };
      await scenario.setup(ctx);
    }
  }
  return {
    capabilities: host.capabilities,
    settings: scenario?.runs ?? {},
    identity: DEFAULT_IDENTITY_RESOLVER,
    modelCalls: () => modelCalls,
    handlerCalls: () => hostCodeCalls(host.capabilities) ?? 0,
    source: scenario ? `scenario ${scenario.id}` : 'sandbox',
    close: async () => {
      await host.stop().catch(() => undefined);
      await own?.close?.();
    },
  };
}
