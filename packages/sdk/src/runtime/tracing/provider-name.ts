// `gen_ai.provider.name` and `server.address` / `server.port` of a model provider, by the GenAI semantic
// conventions (https://opentelemetry.io/docs/specs/semconv/registry/attributes/gen-ai/#gen-ai-provider-name).

/** Provider ids and OpenAI-compatible dialect names whose provider has a well-known value in the registry. */
const WELL_KNOWN: Readonly<Record<string, string>> = {
  anthropic: 'anthropic',
  openai: 'openai',
  deepseek: 'deepseek',
  gemini: 'gcp.gemini',
  groq: 'groq',
  xai: 'x_ai',
  mistral: 'mistral_ai',
  perplexity: 'perplexity',
  cohere: 'cohere',
  bedrock: 'aws.bedrock',
  azure: 'azure.ai.openai',
};

/**
 * The `gen_ai.provider.name` of a provider: the registry's well-known value where there is one (`openai`,
 * `anthropic`, `deepseek`, `gcp.gemini`, `x_ai`, `mistral_ai`, `groq`, …), else the lowercase dialect or provider id without any
 * `openai-compatible:` prefix or `@…` suffix (`ollama`, `vllm`, `openrouter`, `kimi`, `scripted`, a custom
 * provider's own id). Never the dialect appended to a well-known name. When the base URL is a known Azure host
 * (Azure OpenAI in the public, Government or China cloud, Azure AI Foundry, the Azure AI model inference API),
 * the host decides, whatever the OpenAI-compatible dialect: `azure.ai.openai` or `azure.ai.inference`.
 * @example
 * ```ts
 * providerName('openai-compatible:deepseek'); // 'deepseek'
 * providerName('openai-compatible:generic', 'https://contoso.services.ai.azure.com/models'); // 'azure.ai.inference'
 * ```
 * @param providerId - `ModelProvider.id` (e.g. `anthropic`, `openai-compatible:deepseek`)
 * @param baseUrl - the provider's base URL, when it has one
 */
export function providerName(providerId: string, baseUrl?: string): string {
  let id = providerId.trim().toLowerCase();
  const at = id.indexOf('@');
  if (at > 0) id = id.slice(0, at);
  const compatible = id.startsWith('openai-compatible:');
  if (compatible) id = id.slice('openai-compatible:'.length);
  if (compatible || id === 'openai' || id === 'azure') {
    const azure = azureProvider(baseUrl);
    if (azure) return azure;
  }
  return WELL_KNOWN[id] ?? (id === '' ? 'unknown' : id);
}

/**
 * The registry's Azure value for an Azure base URL: `azure.ai.openai` (Azure OpenAI) on `*.openai.azure.com`,
 * `*.cognitiveservices.azure.com` and their Azure Government (`.azure.us`) and Azure China (`.azure.cn`) forms, and on `*.services.ai.azure.com` (Azure AI Foundry) under `/openai`;
 * `azure.ai.inference` (the Azure AI model inference API) on `*.services.ai.azure.com` under `/models` and on
 * serverless `*.models.ai.azure.com` / `*.inference.ai.azure.com`. Undefined for any other URL.
 */
function azureProvider(baseUrl: string | undefined): string | undefined {
  const host = serverOf(baseUrl)?.address.toLowerCase().replace(/\.$/, '') ?? '';
  if (/\.(openai|cognitiveservices)\.azure\.(com|us|cn)$/.test(host)) return 'azure.ai.openai';
  if (host.endsWith('.models.ai.azure.com') || host.endsWith('.inference.ai.azure.com')) return 'azure.ai.inference';
  if (host.endsWith('.services.ai.azure.com')) {
    const path = new URL(baseUrl!).pathname.toLowerCase();
    if (path === '/models' || path.startsWith('/models/')) return 'azure.ai.inference';
    return 'azure.ai.openai';
  }
  return undefined;
}

/**
 * `server.address` and `server.port` of a provider's base URL (the port is the URL's, else the scheme's default).
 * @returns undefined for no URL or one that does not parse
 */
export function serverOf(baseUrl: string | undefined): { address: string; port: number } | undefined {
  if (!baseUrl) return undefined;
  try {
    const url = new URL(baseUrl);
    if (!url.hostname) return undefined;
    const port = url.port ? Number(url.port) : url.protocol === 'http:' ? 80 : 443;
    return { address: url.hostname.replace(/^\[|\]$/g, ''), port };
  } catch {
    return undefined;
  }
}
