// The host's one redaction step, fed with every secret the container can see (docs/secrets.md).
import { MediaAgentError } from '../core/errors';
import { isSecretHolder, SecretRedactor, secretsOfHeaders, secretsOfUrl } from '../core/secret-redactor';
import type { AgentOptions } from '../runtime/agent-options';

/** The `redact` option, checked (`OPTIONS_INVALID` for anything but string secrets and RegExp patterns). */
function checkRedactOption(redact: unknown): void {
  if (redact === undefined) return;
  const r = redact as { secrets?: unknown; patterns?: unknown } | null;
  const secretsOk =
    r?.secrets === undefined || (Array.isArray(r.secrets) && r.secrets.every((s) => typeof s === 'string'));
  const patternsOk =
    r?.patterns === undefined || (Array.isArray(r.patterns) && r.patterns.every((p) => p instanceof RegExp));
  if (typeof redact !== 'object' || redact === null || !secretsOk || !patternsOk)
    throw new MediaAgentError('OPTIONS_INVALID', 'option redact must be { secrets?: string[], patterns?: RegExp[] }', {
      option: 'redact',
    });
}

/** The secrets a provider configuration holds: API key, secret-looking headers, base-URL credentials. */
function configSecrets(config: unknown): string[] {
  if (typeof config !== 'object' || config === null) return [];
  const c = config as { apiKey?: unknown; headers?: unknown; baseUrl?: unknown };
  return [
    ...(typeof c.apiKey === 'string' ? [c.apiKey] : []),
    ...(typeof c.headers === 'object' && c.headers !== null
      ? secretsOfHeaders(c.headers as Record<string, unknown>)
      : []),
    ...(typeof c.baseUrl === 'string' ? secretsOfUrl(c.baseUrl) : []),
  ];
}

/**
 * The redaction step of a host: the `redact` option's secrets and patterns, the model provider's
 * credentials (its `secretValues()`, or its configuration's `apiKey`, secret-looking `headers` and
 * `baseUrl` credentials), and those of the storage, the history store and the channel ports (`channels.ports`)
 * when they name theirs (`secretValues()`, e.g. a PostgreSQL password, a Telegram bot token).
 * @param options - the host's options
 * @throws `OPTIONS_INVALID` for a malformed `redact` option
 * @internal
 */
export function hostRedactor(options: AgentOptions): SecretRedactor {
  checkRedactOption(options.redact);
  const redactor = new SecretRedactor({
    secrets: options.redact?.secrets ?? [],
    patterns: options.redact?.patterns ?? [],
  });
  const provider = options.model?.provider;
  redactor.add(...(isSecretHolder(provider) ? provider.secretValues() : configSecrets(provider)));
  const ports: unknown[] = Array.isArray(options.channels?.ports) ? options.channels.ports : [];
  for (const holder of [options.storage, options.history?.store, ...ports])
    if (isSecretHolder(holder)) redactor.add(...holder.secretValues());
  return redactor;
}
