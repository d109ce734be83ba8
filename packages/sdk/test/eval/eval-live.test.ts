import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WireReplayServer, type RecordedRequest, type ReplayResponse } from '../../src/testing';

const repoRoot = fileURLToPath(new URL('../../../../', import.meta.url));

/** One OpenAI chat-completion stream: the chunks, then usage, then `[DONE]`. */
function stream(delta: Record<string, unknown>, finish: string): ReplayResponse {
  const chunk = (d: Record<string, unknown>, finishReason: string | null, usage: unknown = null) => ({
    data: JSON.stringify({
      id: 'chatcmpl-eval',
      object: 'chat.completion.chunk',
      model: 'gpt-4.1-mini',
      choices: [{ index: 0, delta: d, finish_reason: finishReason }],
      usage,
    }),
  });
  return {
    events: [
      chunk({ role: 'assistant', ...delta }, null),
      chunk({}, finish, { prompt_tokens: 1200, completion_tokens: 40, total_tokens: 1240 }),
      { data: '[DONE]' },
    ],
  };
}

/**
 * A model behind a local OpenAI-compatible endpoint: it reads the inventory, then reports the title as
 * already present with the id it read (or the catalog id when the inventory came back empty: wrong on the
 * seeds where the title is downloading, which the oracle must catch).
 */
function model(req: RecordedRequest): ReplayResponse {
  const body = req.json as {
    messages: Array<{ role: string; content?: unknown }>;
    tools?: Array<{ function: { name: string } }>;
  };
  const toolResult = body.messages.find((m) => m.role === 'tool');
  if (!toolResult) {
    const name = body.tools!.map((t) => t.function.name).find((n) => /^inventory.query$/.test(n))!;
    return stream(
      {
        tool_calls: [
          { index: 0, id: 'call_inv', type: 'function', function: { name, arguments: '{"query":"Dune: Part Two"}' } },
        ],
      },
      'tool_calls',
    );
  }
  const report = { outcome: 'already_present', ids: ['tmdb:693134'], summary: 'Already in the library.' };
  return stream({ content: `Nothing to do.\n\`\`\`json\n${JSON.stringify(report)}\n\`\`\`` }, 'stop');
}

let server: WireReplayServer;
beforeAll(async () => {
  server = await WireReplayServer.start(model);
});
afterAll(async () => {
  await server.close();
});

function evalCli(
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const clean = { ...process.env };
  for (const k of ['ANTHROPIC_API_KEY', 'OPENAI_API_KEY', 'EVAL_PROVIDER', 'EVAL_MODEL']) delete clean[k];
  const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/eval.ts', ...args], {
    cwd: repoRoot,
    env: { ...clean, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve) => child.once('close', (code) => resolve({ code, stdout, stderr })));
}

describe('npm run eval -- --live against a model served over real HTTP', { timeout: 90_000 }, () => {
  it('runs N repetitions, judges each against the world, and reports the pass rate with its interval, tokens and cost', async () => {
    const r = await evalCli(['--live', '--scenario', 'dedup_existing', '--repetitions', '2', '--json'], {
      OPENAI_API_KEY: 'sk-test',
      OPENAI_BASE_URL: server.url,
      EVAL_MODEL: 'gpt-4.1-mini',
    });
    expect(r.code, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout) as {
      intelligence_evaluated: boolean;
      runs: Array<{ seed: number; verdict: string; code: string | null; inputTokens: number; costUsd: number }>;
      summaries: Array<{ label: string; runs: number; passes: number; interval: { low: number; high: number } }>;
    };
    expect(report.intelligence_evaluated).toBe(true);
    // Seed 0: in the library, the id read is right. Seed 1: downloading as dl-1; reporting the catalog id is wrong.
    expect(report.runs.map((x) => [x.seed, x.verdict, x.code])).toEqual([
      [0, 'pass', null],
      [1, 'fail', 'wrong_ids'],
    ]);
    expect(report.runs.every((x) => x.inputTokens === 2400 && x.costUsd > 0)).toBe(true);
    expect(report.summaries).toEqual([
      expect.objectContaining({
        label: 'gpt-4.1-mini',
        runs: 2,
        passes: 1,
        interval: expect.objectContaining({ low: expect.any(Number) }),
      }),
    ]);
    expect(server.requests.every((q) => q.headers.authorization === 'Bearer sk-test')).toBe(true);
  });

  it('--compare runs both models on the same seeds and pairs their verdicts', async () => {
    const r = await evalCli(
      ['--compare', 'gpt-4.1-mini', 'gpt-4.1', '--scenario', 'dedup_existing', '--repetitions', '2', '--json'],
      {
        OPENAI_API_KEY: 'sk-test',
        OPENAI_BASE_URL: server.url,
      },
    );
    expect(r.code, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout) as {
      mode: string;
      runs: Array<{ seed: number; label: string }>;
      paired: { a: string; b: string; scenarios: unknown[] };
    };
    expect(report.mode).toBe('compare');
    expect(report.runs.map((x) => `${x.seed}:${x.label}`)).toEqual([
      '0:gpt-4.1-mini',
      '0:gpt-4.1',
      '1:gpt-4.1-mini',
      '1:gpt-4.1',
    ]);
    expect(report.paired).toEqual({
      a: 'gpt-4.1-mini',
      b: 'gpt-4.1',
      scenarios: [{ scenario: 'dedup_existing', pairs: 2, bothPass: 1, onlyA: 0, onlyB: 0, neither: 1 }],
    });
    const models = server.requests.map((q) => (q.json as { model: string }).model);
    expect(new Set(models)).toEqual(new Set(['gpt-4.1-mini', 'gpt-4.1']));
  });
});
