import { resolvePort, Tokens, type AgentContainer, type AgentOptions } from '@media-agent/sdk';
import { DefaultCapabilityRegistry } from '@media-agent/sdk/capabilities';
import { isHumanActor } from '@media-agent/sdk/authorization';
import type { DecisionSubjects } from '@media-agent/sdk/decisions';

/** What an adapter adds to the SDK options of its host. @public */
export interface AdapterHostParts {
  /** The host credentials, secrets of the host's one redaction step. */
  secrets: readonly string[];
  /** Whether a person is a superuser of the host (the SDK's administrators, unless the host says otherwise). */
  isSuperuser: (actor: string) => boolean | Promise<boolean>;
  /** The host's state as the SDK's decision subjects (unless the host gives its own). */
  subjects: DecisionSubjects;
}

/**
 * The SDK options both adapters set the same way on top of the host's own: the host credentials
 * redacted everywhere, the host's superusers as the SDK's administrators, decisions checked against the
 * host's state — each unless the host application set its own.
 * @param options - the host application's SDK options
 * @param parts - what the adapter knows of its host
 * @returns `redact`, `identity` and `decisions` to spread into `createAgentContainer`'s options
 * @public
 */
export function adapterHostOptions(
  options: AgentOptions,
  parts: AdapterHostParts,
): Pick<AgentOptions, 'redact' | 'identity' | 'decisions'> {
  return {
    redact: { ...options.redact, secrets: [...(options.redact?.secrets ?? []), ...parts.secrets] },
    identity: options.identity ?? {
      roleOf: async (actor) => (isHumanActor(actor) && (await parts.isSuperuser(actor)) ? 'admin' : 'user'),
    },
    decisions: { ...options.decisions, subjects: options.decisions?.subjects ?? parts.subjects },
  };
}

/**
 * The SDK's own capability registry, built from a container's ports (an adapter wraps it in its own
 * registry, which binds plugins).
 * @param container - the container being resolved
 * @returns a new `DefaultCapabilityRegistry`
 * @public
 */
export function sdkCapabilityRegistry(container: AgentContainer): DefaultCapabilityRegistry {
  return new DefaultCapabilityRegistry({
    storage: resolvePort(container, Tokens.StorageAdapter),
    authorizer: resolvePort(container, Tokens.Authorizer),
    ledger: resolvePort(container, Tokens.InvocationLedger),
    clock: resolvePort(container, Tokens.Clock),
    ids: resolvePort(container, Tokens.IdGenerator),
    logger: resolvePort(container, Tokens.Logger),
    maxInputBytes: resolvePort(container, Tokens.AgentOptions).maxInputBytes,
    identity: resolvePort(container, Tokens.Identity),
  });
}

/**
 * The `close()` of an adapter's host: stops the SDK host (a failed stop is ignored: the client still
 * closes), then closes the host client's connections.
 * @param host - the SDK host
 * @param client - the adapter's host client
 * @returns `close()`
 * @public
 */
export function closeHostAndClient(
  host: { stop(): Promise<unknown> },
  client: { close(): Promise<unknown> },
): () => Promise<void> {
  return async () => {
    await host.stop().catch(() => undefined);
    await client.close();
  };
}

/**
 * The warning a host that cannot reach TMDB gets at start, on both generations.
 * @param hostMessage - what the host's own network test said, when anything
 * @returns the warning's text
 * @public
 */
export function metadataUnreachableWarning(hostMessage?: string | null): string {
  return `the MoviePilot host cannot reach TMDB (its metadata source): lookups will find nothing until it can${hostMessage ? ` — host said: ${hostMessage}` : ''}`;
}
