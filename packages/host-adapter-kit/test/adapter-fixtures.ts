// Set-ups the MoviePilot 2.x and 3.x adapter tests share: a download planned and submitted through the
// canonical capabilities, and the pieces of plugin definition-rule tests.
import type { InvocationResult, MediaAgentError } from '@media-agent/sdk';
import Type from 'typebox';

/** What the helpers need of a host: the invocation path. */
export interface InvokingHost {
  invoke(capabilityId: string, input: unknown, context: { actor: string }): Promise<InvocationResult>;
}

/**
 * Searches the releases of Dune: Part Two (tmdb:693134) as `actor` and plans the download of the first one;
 * resolves to the plan id.
 * @param search - more release.search input (e.g. `{ limit: 1 }`)
 */
export async function planFirstRelease(
  host: InvokingHost,
  actor: string,
  search: Record<string, unknown> = {},
): Promise<string> {
  const found = await host.invoke('release.search', { mediaSource: 'tmdb', mediaId: '693134', ...search }, { actor });
  const releaseId = (found.output as { releases: Array<{ releaseId: string }> }).releases[0]!.releaseId;
  const plan = await host.invoke(
    'download.plan',
    { mediaSource: 'tmdb', mediaId: '693134', kind: 'movie', releaseId },
    { actor },
  );
  return (plan.output as { plan: { id: string } }).plan.id;
}

/** {@link planFirstRelease}, then download.submit of that plan as `actor`. */
export async function submitFirstRelease(
  host: InvokingHost,
  actor: string,
  search: Record<string, unknown> = {},
): Promise<{ planId: string; submitted: InvocationResult }> {
  const planId = await planFirstRelease(host, actor, search);
  return { planId, submitted: await host.invoke('download.submit', { planId }, { actor }) };
}

/** The fields a plugin definition needs besides its id, kind and declarations: empty input and output. */
export const pluginBase = {
  version: 1,
  title: 't',
  description: 'd',
  replay: 'safe' as const,
  input: Type.Object({}),
  output: Type.Object({}),
  handler: async () => ({}),
};

/** The code of the media-agent error `f` throws, or `no error`. */
export function thrownCode(f: () => unknown): string {
  try {
    f();
  } catch (error) {
    return (error as MediaAgentError).code;
  }
  return 'no error';
}
