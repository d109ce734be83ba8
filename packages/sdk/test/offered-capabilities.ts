// Every capability a model can be offered by the packages: the 15 standard contracts, a V3 host's
// capabilities (with the 221 mp.* catalog operations) and a V2 host's, and every plugin route of the
// V2 OpenAPI contract. Shared by the schema tests of the capability layer and of the providers' bodies.
import Type from 'typebox';
import { createV2AgentHost, discoverV2PluginCapabilities, type V2HostClient } from '@media-agent/host-adapter-v2';
import { loadV2Contract, MoviePilotV2Simulator } from '@media-agent/host-adapter-v2/testing';
import { createV3AgentHost, mpCapabilityId, V3_OPERATIONS } from '@media-agent/host-adapter-v3';
import { ConsoleLogger, defineCapability, type Capability, type CapabilityDescriptor } from '../src/index';
import { STANDARD_CAPABILITIES } from '../src/media';
import { MemoryStorage } from '../src/storage';

const base = {
  version: 1,
  title: 'T',
  description: 'D',
  kind: 'read' as const,
  replay: 'safe' as const,
  output: Type.Object({ ok: Type.Boolean() }),
};

/** What {@link offeredCapabilities} gathered, with the counts a test can check its sources by. */
export interface OfferedCapabilities {
  /** Descriptors by capability id. */
  byId: Map<string, CapabilityDescriptor>;
  /** How many standard contracts, V3 catalog operations and V2 plugin routes were gathered. */
  counts: { standard: number; v3Operations: number; v2PluginRoutes: number; v2PluginSkipped: number };
}

/**
 * Gathers every capability the SDK and its adapters can offer a model (a V2 simulator serves the
 * OpenAPI document the V2 adapter reads when it is created).
 */
export async function offeredCapabilities(): Promise<OfferedCapabilities> {
  const byId = new Map<string, CapabilityDescriptor>();
  const offer = (d: CapabilityDescriptor) => byId.set(d.id, d);
  const plain = (c: Capability) =>
    ({ ...c, tags: [], aliases: [], policy: undefined, target: undefined }) as unknown as CapabilityDescriptor;

  for (const c of Object.values(STANDARD_CAPABILITIES)) {
    offer(plain(defineCapability({ ...base, id: c.id, input: c.input, handler: async () => ({ ok: true }) } as never)));
  }

  const v3 = createV3AgentHost({
    url: 'http://127.0.0.1:9',
    auth: { apiKey: 'k' },
    storage: new MemoryStorage(),
    logger: new ConsoleLogger('silent'),
  });
  try {
    for (const d of v3.host.capabilities.list()) offer(d);
    for (const op of V3_OPERATIONS) offer(v3.host.capabilities.get(mpCapabilityId(op.operation_id)));
  } finally {
    await v3.close();
  }

  const simulator = new MoviePilotV2Simulator();
  await simulator.start();
  try {
    const v2 = await createV2AgentHost({
      url: simulator.url,
      credentials: { apiKey: simulator.apiToken },
      storage: new MemoryStorage(),
      logger: new ConsoleLogger('silent'),
      plugins: false,
    });
    try {
      for (const d of v2.host.capabilities.list()) offer(d);
    } finally {
      await v2.close();
    }
  } finally {
    await simulator.stop();
  }
  const contract = loadV2Contract();
  const client = {
    send: async () => contract,
    accepts: () => true,
    loadContract: async () => ({ document: contract }),
  } as unknown as V2HostClient;
  const plugins = await discoverV2PluginCapabilities(client);
  for (const c of plugins.capabilities) offer(plain(c as Capability));

  return {
    byId,
    counts: {
      standard: Object.keys(STANDARD_CAPABILITIES).length,
      v3Operations: V3_OPERATIONS.length,
      v2PluginRoutes: plugins.capabilities.length,
      v2PluginSkipped: plugins.skipped.length,
    },
  };
}
