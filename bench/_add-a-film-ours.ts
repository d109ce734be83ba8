/**
 * The add-a-film workload (`_add-a-film.ts`) on media-agent: the five tools as capabilities with
 * trivial handlers (two reads, `download.plan` a `propose`, `download.submit` an `execute` with
 * `replay: 'never'`, `download.status` a read), a standing grant so `user:admin`'s runs may plan and
 * submit without asking, and the minimal model double as a {@link ModelProvider}.
 *
 * A run is started with `startRun` (mode `execute`, actor `user:admin`) and is done at its terminal
 * `run_status` event: the run's event stream, `host.events({ runId })`, as a user waits for a run (no polling).
 */
import Type from 'typebox';
import {
  ConsoleLogger,
  createAgentContainer,
  defineCapability,
  resolvePort,
  Tokens,
  type AgentHost,
  type StorageAdapter,
} from '../packages/sdk/src/index';
import type { RunStatus } from '../packages/sdk/src/storage';
import type { ModelEvent, ModelProvider, ModelRequest } from '../packages/sdk/src/models';
import {
  FILM_FINAL_TEXT,
  FILM_GOAL,
  FILM_RESULTS,
  FILM_TOOL_CALLS,
  FILM_TURNS,
  filmTurn,
  filmUsage,
  type FilmTool,
} from './_add-a-film';

const Any = Type.Object({}, { additionalProperties: true });

const capability = (id: FilmTool, kind: 'read' | 'propose' | 'execute', input: ReturnType<typeof Type.Object>) =>
  defineCapability({
    id,
    version: 1,
    title: id,
    description: `${id} (benchmark: returns a fixed object).`,
    kind,
    replay: kind === 'execute' ? 'never' : 'safe',
    input,
    output: Any,
    handler: async () => FILM_RESULTS[id],
  });

/** The five capabilities of the workload. */
export const FILM_CAPABILITIES = [
  capability('catalog.lookup', 'read', Type.Object({ query: Type.String(), limit: Type.Optional(Type.Integer()) })),
  capability(
    'release.search',
    'read',
    Type.Object({ mediaSource: Type.String(), mediaId: Type.String(), limit: Type.Optional(Type.Integer()) }),
  ),
  capability(
    'download.plan',
    'propose',
    Type.Object({ mediaSource: Type.String(), mediaId: Type.String(), releaseId: Type.String() }),
  ),
  capability('download.submit', 'execute', Type.Object({ planId: Type.String() })),
  capability('download.status', 'read', Type.Object({ downloadId: Type.String() })),
];

/** The minimal model double: turn n = assistant messages so far, answered whole. */
export class FilmModel implements ModelProvider {
  readonly id = 'bench-film';
  async *stream(request: ModelRequest): AsyncGenerator<ModelEvent> {
    let assistants = 0;
    for (const m of request.messages) if (m.role === 'assistant') assistants++;
    const turn = filmTurn(assistants);
    yield { type: 'text_delta', text: turn.text };
    if (turn.call) {
      const id = `call_${assistants}`;
      const raw = JSON.stringify(turn.call.input);
      yield { type: 'tool_call_start', id, name: turn.call.tool };
      yield { type: 'tool_call_end', id, name: turn.call.tool, rawArguments: raw, ok: true, input: turn.call.input };
    }
    const chars = JSON.stringify(request.messages).length + JSON.stringify(request.tools ?? []).length;
    const usage = filmUsage(chars, turn);
    yield { type: 'usage', usage: { ...usage, cacheReadTokens: 0, cacheWriteTokens: 0 } };
    yield { type: 'done', stopReason: turn.call ? 'tool_use' : 'end_turn' };
  }
}

/** A started host running the workload, and `once()` which runs it once and checks the run succeeded. */
export interface FilmHost {
  host: AgentHost;
  once: () => Promise<string>;
  /** Checks the newest run played the whole conversation; throws when it did not. */
  check: () => Promise<void>;
  close: () => Promise<void>;
}

/** Starts a host on `storage` that runs the add-a-film workload, `concurrency` runs at once at most. */
export async function startFilmHost(storage: StorageAdapter, concurrency = 1): Promise<FilmHost> {
  const container = createAgentContainer({
    storage,
    logger: new ConsoleLogger('silent'),
    model: { provider: new FilmModel(), model: 'film' },
    limits: { runStartsPerMinutePerActor: 1_000_000, runStartsPerMinuteTotal: 1_000_000 },
    runs: {
      concurrency,
      pollMs: 50,
      daily: { agentMaxRunsPerDay: 1_000_000 },
      spending: { roles: { admin: { day: { runs: null } } } },
    },
  });
  const host = resolvePort(container, Tokens.AgentHost);
  for (const c of FILM_CAPABILITIES) host.capabilities.register(c);
  await host.start();
  await host.grants.create({ action: 'download.plan', actor: 'user:admin' });
  await host.grants.create({ action: 'download.submit', actor: 'user:admin' });
  // As a user waits for a run: its event stream, which ends after the run's terminal status.
  const once = async () => {
    const run = await host.startRun({ goal: FILM_GOAL, mode: 'execute', actor: 'user:admin' });
    let status: RunStatus | undefined;
    for await (const e of host.events({ runId: run.id })) if (e.type === 'run_status') status = e.data.status;
    if (status !== 'succeeded')
      throw new Error(`run ${run.id} ended ${status}: ${JSON.stringify((await host.getRun(run.id)).run.error)}`);
    return run.id;
  };
  const check = async () => {
    const [last] = await host.listRuns({ limit: 1 });
    if (!last) throw new Error('no run');
    const { run } = await host.getRun(last.id);
    if (
      run.usage.modelCalls !== FILM_TURNS ||
      run.usage.toolCalls !== FILM_TOOL_CALLS ||
      run.finalText !== FILM_FINAL_TEXT
    )
      throw new Error(
        `the run played ${run.usage.modelCalls} model turns, ${run.usage.toolCalls} tool calls, final text ${JSON.stringify(run.finalText)}`,
      );
  };
  return { host, once, check, close: () => host.stop() };
}
