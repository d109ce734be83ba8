// A small shelf world for the approval tests: a plan of file copies onto a volume with steps (one per file), an
// execute capability that declares its impact (bytes written, free space before and after), its plan payload schema
// (so an approver may edit the plan) and its inverse. A host rule (a wrapped authorizer) refuses any plan of
// quality `2160p`: the policy an edit must pass too.
import Type from 'typebox';
import {
  ConsoleLogger,
  createAgentHost,
  defineCapability,
  ManualClock,
  SequentialIdGenerator,
  Tokens,
  type AgentHost,
  type Authorizer,
  type DenialCode,
} from '../../src/index';
import { PolicyAuthorizer } from '../../src/authorization';
import { ScriptedProvider, type FakeScript } from '../../src/testing';
import { makeStorage, type StorageKind } from '../helpers';

export const ADMIN = 'user:admin';
export const BOB = 'apikey:bob';

/** What the handlers saw and the volume they write to. */
export interface Shelf {
  /** Free bytes of /media/movies. */
  freeBytes: number;
  /** Files on the shelf: name → bytes. */
  files: Map<string, number>;
  /** Every handler call: capability, the plan payload it executed and the steps it ran. */
  calls: Array<{ capability: string; payload: unknown; steps: string[] }>;
  /** Impact calls (never a handler call). */
  impacts: number;
  /** When set, the impact of shelf.apply throws this. */
  impactThrows: string | undefined;
  /** When true, the impact of shelf.apply never answers (until its signal aborts). */
  impactHangs: boolean;
}

const Step = Type.Object({ id: Type.String(), label: Type.String(), bytes: Type.Integer({ minimum: 0 }) });
/** The plan payload shelf.plan freezes and shelf.apply executes. */
export const ShelfPayload = Type.Object(
  { title: Type.String(), quality: Type.String(), steps: Type.Array(Step, { minItems: 1 }) },
  { additionalProperties: false },
);

/** Files of a plan: one step per file; `Dune` in 1080p is 12.4 GB in two files, in 2160p 58.2 GB in two. */
export function shelfSteps(quality: string): Array<{ id: string; label: string; bytes: number }> {
  const total = quality === '2160p' ? 58.2e9 : 12.4e9;
  return [
    { id: 'f1', label: `Dune (2021) ${quality}.mkv`, bytes: Math.round(total * 0.9) },
    { id: 'f2', label: `Dune (2021) ${quality} extras.mkv`, bytes: Math.round(total * 0.1) },
  ];
}

/** Registers shelf.plan, shelf.apply (impact, planPayload, inverse) and shelf.remove on `host`. */
export function registerShelf(host: AgentHost): Shelf {
  const shelf: Shelf = {
    freeBytes: 412e9 + 58.2e9,
    files: new Map(),
    calls: [],
    impacts: 0,
    impactThrows: undefined,
    impactHangs: false,
  };
  host.capabilities.register(
    defineCapability({
      id: 'shelf.plan',
      version: 1,
      title: 'Plan a copy onto the shelf',
      description: 'Freezes a plan to copy a title onto /media/movies.',
      kind: 'propose',
      replay: 'safe',
      input: Type.Object({ title: Type.String(), quality: Type.String() }),
      output: Type.Object({ planId: Type.String(), payloadHash: Type.String() }),
      handler: async (input, ctx) => {
        const plan = await host.plans.create({
          type: 'shelf',
          payload: { title: input.title, quality: input.quality, steps: shelfSteps(input.quality) },
          actor: ctx.actor,
          bytes: shelfSteps(input.quality).reduce((n, s) => n + s.bytes, 0),
        });
        return { planId: plan.id, payloadHash: plan.payloadHash };
      },
    }),
  );
  const Apply = Type.Object({
    planId: Type.String(),
    steps: Type.Optional(Type.Array(Type.String(), { minItems: 1 })),
  });
  host.capabilities.register(
    defineCapability({
      id: 'shelf.apply',
      version: 1,
      title: 'Copy a planned title onto the shelf',
      description: 'Executes a shelf plan: copies its files onto /media/movies.',
      kind: 'execute',
      replay: 'reconcile',
      input: Apply,
      output: Type.Object({ copied: Type.Array(Type.String()) }),
      planPayload: ShelfPayload,
      target: (input) => ({ planType: 'shelf', planId: input.planId, ...(input.steps ? { steps: input.steps } : {}) }),
      impact: async (input, ctx) => {
        shelf.impacts++;
        if (shelf.impactThrows) throw new Error(shelf.impactThrows);
        if (shelf.impactHangs)
          await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve, { once: true }));
        const payload = ctx.plan?.payload as { steps: Array<{ id: string; label: string; bytes: number }> };
        const steps = payload.steps.filter((s) => !input.steps || input.steps.includes(s.id));
        const bytes = steps.reduce((n, s) => n + s.bytes, 0);
        return {
          writeBytes: bytes,
          filesCreated: steps.length,
          path: '/media/movies',
          freeBytesBefore: shelf.freeBytes,
          freeBytesAfter: shelf.freeBytes - bytes,
          transferMode: 'copy',
          reversible: true,
          reversibleBy: 'inverse' as const,
          steps: steps.map((s) => ({ id: s.id, label: s.label, bytes: s.bytes })),
        };
      },
      inverse: { capability: 'shelf.remove', input: (output) => ({ names: output.copied }) },
      handler: async (input, ctx) => {
        const payload = ctx.plan?.payload as { steps: Array<{ id: string; label: string; bytes: number }> };
        const steps = payload.steps.filter((s) => !input.steps || input.steps.includes(s.id));
        shelf.calls.push({ capability: 'shelf.apply', payload: ctx.plan?.payload, steps: steps.map((s) => s.id) });
        for (const s of steps) {
          shelf.files.set(s.label, s.bytes);
          shelf.freeBytes -= s.bytes;
        }
        return { copied: steps.map((s) => s.label) };
      },
    }),
  );
  host.capabilities.register(
    defineCapability({
      id: 'shelf.remove',
      version: 1,
      title: 'Remove files from the shelf',
      description: 'Removes copied files.',
      kind: 'execute',
      replay: 'reconcile',
      input: Type.Object({ names: Type.Array(Type.String()) }),
      output: Type.Object({ removed: Type.Integer() }),
      handler: async (input) => {
        shelf.calls.push({ capability: 'shelf.remove', payload: input, steps: [] });
        for (const name of input.names) {
          shelf.freeBytes += shelf.files.get(name) ?? 0;
          shelf.files.delete(name);
        }
        return { removed: input.names.length };
      },
    }),
  );
  return shelf;
}

/** The household's rule, as a host authorizer adds it: no 2160p plan, whoever asks (an administrator's own call too). */
function householdAuthorizer(inner: Authorizer): Authorizer {
  return {
    authorize: async (request, session) => {
      const payload = request.plan?.payload as { quality?: string } | undefined;
      if (payload?.quality === '2160p')
        return {
          allowed: false,
          code: 'HOUSEHOLD_NO_2160P' as DenialCode,
          reason: 'the household keeps 2160p off the shelf (the disk is small)',
        };
      return inner.authorize(request, session);
    },
  };
}

/** A started host on a fresh store with the shelf; `scripts` drive runs (ScriptedProvider). */
export async function shelfHost(
  options: {
    kind?: StorageKind;
    scripts?: FakeScript[];
    impactTimeoutMs?: number;
    household?: boolean;
    secrets?: string[];
  } = {},
) {
  const clock = new ManualClock(Date.UTC(2026, 11, 3, 9));
  const storage = makeStorage(options.kind ?? 'sqlite');
  const host = createAgentHost({
    storage,
    clock,
    ids: new SequentialIdGenerator(),
    logger: new ConsoleLogger('silent'),
    ...(options.impactTimeoutMs !== undefined ? { impactTimeoutMs: options.impactTimeoutMs } : {}),
    ...(options.secrets ? { redact: { secrets: options.secrets } } : {}),
    ...(options.scripts
      ? {
          model: { provider: new ScriptedProvider({ scripts: options.scripts }) },
          runs: { pollMs: 5, goalPollSec: 1, refusedTurnPauseMs: 1 },
        }
      : {}),
    ...(options.household
      ? {
          configure: (c) => c.register(Tokens.Authorizer, { useValue: householdAuthorizer(new PolicyAuthorizer()) }),
        }
      : {}),
  });
  const shelf = registerShelf(host);
  await host.start();
  return { host, shelf, clock, storage };
}
