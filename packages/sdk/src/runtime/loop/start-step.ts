// The first step of a drive: the working conversation, crash reconciliation, the middleware's start.
import type { CapabilityDescriptor } from '../../core/capability-descriptor';
import { markHumanInput } from './human-input';
import type { ModelMessage, ModelTool } from '../../models/types';
import { capabilityModelTool } from '../context/tool-discovery';
import type { Loop } from './loop';
import { freezeMemorySnapshot } from './memory-step';
import { reconcileDanglingCalls } from './reconcile';
import { offeredCatalog } from './run-rule';
import { DEFAULT_IDENTITY_RESOLVER } from '../../ports/identity';
import type { RunSession } from './run-session';

/** Model tools of registered capabilities (descriptors are the registry's, unchanged while registered). */
const modelTools = new WeakMap<CapabilityDescriptor, ModelTool>();

/** The model tool of a capability, the same object for the same descriptor (so token counts are memoized across runs). */
function modelToolOf(descriptor: CapabilityDescriptor): ModelTool {
  let tool = modelTools.get(descriptor);
  if (!tool) modelTools.set(descriptor, (tool = capabilityModelTool(descriptor)));
  return tool;
}

/** The capability each catalog tool of a drive's base offer stands for. */
const toolCapabilities = new WeakMap<ModelTool, string>();

/**
 * The drive's base offer as of now: a capability tool whose capability the registry no longer offers (an MCP tool
 * disabled by drift mid-run) is left out of the next model call; the runtime's tools stay.
 * @param loop - the loop (its capability registry)
 * @param baseTools - what {@link startDrive} returned
 */
export function offeredNow(loop: Loop, baseTools: readonly ModelTool[]): readonly ModelTool[] {
  if (!baseTools.some((t) => toolCapabilities.has(t))) return baseTools;
  const offered = new Set(loop.deps.capabilities.list().map((d) => d.id));
  const now = baseTools.filter((t) => {
    const id = toolCapabilities.get(t);
    return id === undefined || offered.has(id);
  });
  return now.length === baseTools.length ? baseTools : now;
}

/**
 * Prepares a drive (written by the caller's commit): the working conversation from storage (after a
 * compaction, its summary and the messages kept since; all stay in storage), the goal as the first
 * message of a new run, the dangling calls of a crash reconciled, and `onDriveStart` of the
 * middleware.
 * @returns the drive's base tool offer: the capabilities the run may use and the runtime's tools
 */
export async function startDrive(loop: Loop, session: RunSession): Promise<ModelTool[]> {
  const { deps } = loop;
  const stored = (await deps.storage.messages.list(session.id)).map((m) => m.message as unknown as ModelMessage);
  const compacted = session.getState('compaction') as { keepFrom: number; summary: ModelMessage } | undefined;
  session.messages.splice(
    0,
    session.messages.length,
    ...(compacted ? [compacted.summary, ...stored.slice(compacted.keepFrom)] : stored),
  );
  session.storedCount = stored.length;
  session.committedMessages = stored.length;
  if (session.messages.length === 0)
    session.append(markHumanInput({ role: 'user', content: session.run.goal }, 'goal'));
  await reconcileDanglingCalls(loop, session);
  await freezeMemorySnapshot(loop, session);
  const catalog = await offeredCatalog(
    deps.capabilities,
    session.run,
    deps.storage.runs,
    deps.identity ?? DEFAULT_IDENTITY_RESOLVER,
  );
  const capabilityTools = catalog.map((d) => {
    const tool = modelToolOf(d);
    toolCapabilities.set(tool, d.id);
    return tool;
  });
  const tools = [...capabilityTools, ...loop.tools.offered(session.run)];
  return loop.pipeline.driveStart(session, { catalog, runtimeTools: loop.tools.available(session.run), tools });
}
