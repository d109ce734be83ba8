// A small file world for the undo tests, with capabilities defined here (not the sandbox world's): moves and tags
// that declare inverses, a delete that declares none, a read, a rename whose inverse input throws, and a job that is
// only accepted (pending). Alice and Bob are ordinary users, `user:admin` the administrator.
import Type from 'typebox';
import {
  ConsoleLogger,
  createAgentHost,
  defineCapability,
  ManualClock,
  OutcomeUnknownError,
  SequentialIdGenerator,
  type AgentHost,
} from '../../src/index';
import { ScriptedProvider, type FakeScript } from '../../src/testing';
import { makeStorage, type StorageKind } from '../helpers';

export const ADMIN = 'user:admin';
export const ALICE = 'user:alice';
export const BOB = 'user:bob';

/** The world the capabilities change, what their handlers were called with, and switches for faults. */
export interface FileWorld {
  /** path → content */
  files: Map<string, string>;
  /** path → tags */
  tags: Map<string, Set<string>>;
  /** Handler calls, in order: `<capability> <path…>`. */
  calls: string[];
  /** When set, `files.untag` fails (did not take effect) for this path. */
  untagFailsFor: string | undefined;
  /** When set, `files.tag` throws OutcomeUnknownError for this path (after tagging). */
  tagUnknownFor: string | undefined;
}

const Path = Type.String({ minLength: 1, maxLength: 200 });
const Moved = Type.Object({ from: Path, to: Path });
const Tagged = Type.Object({ path: Path, tag: Type.String() });

/** Registers the file capabilities on `host`; each handler advances `clock` by 1 s, so every claim is at its own time. */
export function registerFiles(host: AgentHost, clock: ManualClock): FileWorld {
  const world: FileWorld = {
    files: new Map(),
    tags: new Map(),
    calls: [],
    untagFailsFor: undefined,
    tagUnknownFor: undefined,
  };
  const step = (line: string) => {
    world.calls.push(line);
    clock.advance(1000);
  };
  const move = (from: string, to: string) => {
    const content = world.files.get(from);
    if (content === undefined) throw new Error(`no file ${from}`);
    world.files.delete(from);
    world.files.set(to, content);
  };
  host.capabilities.register(
    defineCapability({
      id: 'files.list',
      version: 1,
      title: 'List files',
      description: 'Lists the files.',
      kind: 'read',
      replay: 'safe',
      input: Type.Object({}),
      output: Type.Object({ paths: Type.Array(Type.String()) }),
      handler: async () => {
        step('files.list');
        return { paths: [...world.files.keys()].sort() };
      },
    }),
  );
  host.capabilities.register(
    defineCapability({
      id: 'files.move',
      version: 1,
      title: 'Move a file',
      description: 'Moves a file.',
      kind: 'execute',
      replay: 'reconcile',
      input: Moved,
      output: Moved,
      inverse: { capability: 'files.restore', input: (output) => ({ from: output.to, to: output.from }) },
      handler: async (input) => {
        step(`files.move ${input.from} ${input.to}`);
        move(input.from, input.to);
        return input;
      },
    }),
  );
  host.capabilities.register(
    defineCapability({
      id: 'files.restore',
      version: 1,
      title: 'Move a file back',
      description: 'Moves a file back where it was (the inverse of files.move).',
      kind: 'execute',
      replay: 'reconcile',
      input: Moved,
      output: Moved,
      handler: async (input) => {
        step(`files.restore ${input.from} ${input.to}`);
        move(input.from, input.to);
        return input;
      },
    }),
  );
  host.capabilities.register(
    defineCapability({
      id: 'files.delete',
      version: 1,
      title: 'Delete a file',
      description: 'Deletes a file for good.',
      kind: 'execute',
      replay: 'reconcile',
      input: Type.Object({ path: Path }),
      output: Type.Object({ deleted: Path }),
      handler: async (input) => {
        step(`files.delete ${input.path}`);
        world.files.delete(input.path);
        return { deleted: input.path };
      },
    }),
  );
  host.capabilities.register(
    defineCapability({
      id: 'files.tag',
      version: 1,
      title: 'Tag a file',
      description: 'Adds a tag to a file.',
      kind: 'execute',
      replay: 'never',
      input: Tagged,
      output: Tagged,
      inverse: { capability: 'files.untag', input: (output) => output },
      handler: async (input) => {
        step(`files.tag ${input.path}`);
        const tags = world.tags.get(input.path) ?? new Set();
        tags.add(input.tag);
        world.tags.set(input.path, tags);
        if (world.tagUnknownFor === input.path) throw new OutcomeUnknownError('the tag service did not answer');
        return input;
      },
    }),
  );
  host.capabilities.register(
    defineCapability({
      id: 'files.untag',
      version: 1,
      title: 'Remove a tag',
      description: 'Removes a tag from a file (the inverse of files.tag).',
      kind: 'execute',
      replay: 'reconcile',
      input: Tagged,
      output: Tagged,
      handler: async (input) => {
        step(`files.untag ${input.path}`);
        if (world.untagFailsFor === input.path) throw new Error(`the tag service refused to untag ${input.path}`);
        world.tags.get(input.path)?.delete(input.tag);
        return input;
      },
    }),
  );
  host.capabilities.register(
    defineCapability({
      id: 'files.rename',
      version: 1,
      title: 'Rename a file',
      description: 'Renames a file; its declared inverse cannot read the output it gets.',
      kind: 'execute',
      replay: 'reconcile',
      input: Moved,
      output: Moved,
      inverse: {
        capability: 'files.restore',
        input: () => {
          throw new Error('the rename receipt has no original name');
        },
      },
      handler: async (input) => {
        step(`files.rename ${input.from} ${input.to}`);
        move(input.from, input.to);
        return input;
      },
    }),
  );
  host.capabilities.register(
    defineCapability({
      id: 'files.archive',
      version: 1,
      title: 'Archive a file',
      description: 'Queues a file for archiving (an async job: the call is only accepted).',
      kind: 'execute',
      replay: 'reconcile',
      input: Type.Object({ path: Path }),
      output: Type.Object({ jobId: Type.String(), from: Path, to: Path }),
      inverse: { capability: 'files.restore', input: (output) => ({ from: output.to, to: output.from }) },
      handler: async (input, ctx) => {
        step(`files.archive ${input.path}`);
        move(input.path, `archive/${input.path}`);
        return ctx.pending({ jobId: `job-${input.path}`, from: input.path, to: `archive/${input.path}` });
      },
    }),
  );
  return world;
}

/** A started host on a fresh store of `kind` with the file capabilities, a manual clock and sequential ids. */
export async function undoHost(kind: StorageKind, scripts: FakeScript[] = []) {
  const clock = new ManualClock(Date.UTC(2026, 10, 30, 12));
  const storage = makeStorage(kind);
  const host = createAgentHost({
    storage,
    clock,
    ids: new SequentialIdGenerator(),
    logger: new ConsoleLogger('silent'),
    identity: { roleOf: (actor) => (actor === ADMIN ? 'admin' : 'user') },
    model: { provider: new ScriptedProvider({ scripts }) },
    runs: { pollMs: 5 },
  });
  const world = registerFiles(host, clock);
  await host.start();
  for (const [path, content] of [
    ['a.mkv', 'A'],
    ['b.mkv', 'B'],
    ['c.mkv', 'C'],
    ['d.mkv', 'D'],
  ] as const)
    world.files.set(path, content);
  return { host, clock, world, storage };
}

/** The script of a run that moves a.mkv, deletes b.mkv, tags c.mkv, lists, then moves d.mkv: one call per turn. */
export const TIDY_SCRIPT: FakeScript = {
  name: 'tidy',
  match: 'tidy',
  steps: [
    { toolCalls: [{ capability: 'files.move', input: { from: 'a.mkv', to: 'movies/a.mkv' } }] },
    { toolCalls: [{ capability: 'files.delete', input: { path: 'b.mkv' } }] },
    { toolCalls: [{ capability: 'files.tag', input: { path: 'c.mkv', tag: 'seen' } }] },
    { toolCalls: [{ capability: 'files.list', input: {} }] },
    { toolCalls: [{ capability: 'files.move', input: { from: 'd.mkv', to: 'movies/d.mkv' } }] },
  ],
  finalText: 'Tidied.',
};

/** Grants the run's (automatic) calls of the forward capabilities; never the inverses. */
export async function grantForwardCalls(host: AgentHost): Promise<void> {
  for (const action of ['files.move', 'files.delete', 'files.tag', 'files.rename', 'files.archive'])
    await host.grants.create({ action, actor: ADMIN });
}
