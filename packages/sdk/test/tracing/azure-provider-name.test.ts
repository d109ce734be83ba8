// gen_ai.provider.name for Azure OpenAI. Azure OpenAI resources are served both on
// https://<resource>.openai.azure.com and on https://<resource>.cognitiveservices.azure.com (the endpoint the
// Azure portal and AI Foundry show for Azure OpenAI resources created since 2025); both are the registry's
// `azure.ai.openai`. Only the first is recognised: the second is recorded as `openai`, i.e. OpenAI itself.
// (No network: the call fails PROVIDER_UNREACHABLE, the chat span is still recorded with its provider name.)
import { afterEach, expect, it } from 'vitest';
import { ConsoleLogger, createAgentHost, type AgentHost } from '../../src/index';
import { OpenAICompatibleProvider } from '../../src/models';
import { MemoryStorage } from '../../src/storage';
import { waitForStatus } from '../runtime/harness';
import { memoryTracing, op } from './span-harness';

const hosts: AgentHost[] = [];
afterEach(async () => {
  for (const h of hosts.splice(0)) await h.stop().catch(() => undefined);
});

async function providerName(baseUrl: string): Promise<unknown> {
  const { exporter, options } = memoryTracing();
  const provider = new OpenAICompatibleProvider({
    baseUrl,
    apiKey: 'k-0123456789',
    retry: { maxAttempts: 1 },
  } as never);
  const host = createAgentHost({
    storage: new MemoryStorage(),
    logger: new ConsoleLogger('silent'),
    model: { provider, model: 'gpt-4.1' },
    runs: { pollMs: 5 },
    tracing: options,
  });
  hosts.push(host);
  await host.start();
  const run = await host.startRun({ goal: 'hi', actor: 'user:admin', mode: 'plan_only' });
  await waitForStatus(host, run.id, ['succeeded', 'failed', 'cancelled', 'budget_exceeded', 'waiting']);
  await host.stop();
  return exporter.getFinishedSpans().find((s) => op(s) === 'chat')?.attributes['gen_ai.provider.name'];
}

it('an Azure OpenAI resource on *.cognitiveservices.azure.com is azure.ai.openai, as on *.openai.azure.com', async () => {
  expect(await providerName('https://myres.openai.azure.com/openai/v1')).toBe('azure.ai.openai');
  // got: 'openai'
  expect(await providerName('https://myres.cognitiveservices.azure.com/openai/v1')).toBe('azure.ai.openai');
}, 30000);
