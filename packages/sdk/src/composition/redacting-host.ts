// The host façade's side of the redaction boundary: what `invoke` hands back to a caller outside the
// process (the MCP server's clients, the HTTP dry-run route) carries no secret in its error message, nor a dry run in
// its verdict's reason or an unknown impact's reason (docs/secrets.md).
import type { SecretRedactor } from '../core/secret-redactor';
import type { InvocationDryRun, InvocationResult } from '../capabilities/invocation';
import type { AgentHost } from '../runtime/agent-host';

/**
 * A view of `host` whose `invoke` results have their `error.message` redacted; every other member (and the
 * result's output) is the host's own. `instanceof` holds.
 * @param host - the host
 * @param redactor - the host's redaction step
 * @internal
 */
export function redactingHost(host: AgentHost, redactor: SecretRedactor): AgentHost {
  const invoke = async (...args: unknown[]): Promise<InvocationResult | InvocationDryRun> => {
    const result = await (host.invoke as (...a: unknown[]) => Promise<InvocationResult | InvocationDryRun>)(...args);
    if (result?.status === 'dry_run') return redactDryRun(result, redactor);
    if (!result?.error || typeof result.error.message !== 'string') return result;
    const message = redactor.text(result.error.message);
    return message === result.error.message ? result : { ...result, error: { ...result.error, message } };
  };
  return new Proxy(host, {
    get(target, prop) {
      if (prop === 'invoke') return invoke;
      const value: unknown = Reflect.get(target, prop, target);
      // Methods are bound to the host (its private fields); an own callable member (`host.audit`, with its own
      // `verify` and `export`) is handed out as it is.
      return typeof value === 'function' && !Object.hasOwn(target, prop)
        ? (value as (...a: unknown[]) => unknown).bind(target)
        : value;
    },
  });
}

/** A dry run with its verdict's reason and an unknown impact's reason and summary redacted (an impact's error text). */
function redactDryRun(result: InvocationDryRun, redactor: SecretRedactor): InvocationDryRun {
  const verdict =
    typeof result.verdict.reason === 'string'
      ? { ...result.verdict, reason: redactor.text(result.verdict.reason) }
      : result.verdict;
  const impact =
    result.impact.status === 'unknown'
      ? { ...result.impact, reason: redactor.text(result.impact.reason), summary: redactor.text(result.impact.summary) }
      : result.impact;
  return { ...result, verdict, impact };
}
