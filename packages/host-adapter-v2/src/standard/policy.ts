import { settingChanges } from '@media-agent/host-adapter-kit';
import { defineStandardCapability } from '@media-agent/sdk/media';
import type { V2HostClient } from '../client';
import type { V2StandardDeps, V2StandardHelpers } from './services';

/**
 * Acquisition and organize policies, kept in the host's user configuration (`/api/v1/user/config/{key}`).
 * @param deps - the host view and plan service
 * @param h - the shared reads and checks
 * @returns `policy.preview`, `policy.apply` by id
 * @internal
 */
export function v2PolicyCapabilities(deps: V2StandardDeps, _h: V2StandardHelpers) {
  const { view } = deps;
  const { client } = view;
  return {
    'policy.preview': defineStandardCapability('policy.preview', async (input, ctx) => {
      const current = await readPolicy(client, input.kind, ctx.signal);
      const { proposed, changes } = settingChanges(current.settings, input.settings);
      return { kind: input.kind, revision: current.revision, current: current.settings, proposed, changes };
    }),
    'policy.apply': defineStandardCapability('policy.apply', async (input, ctx) => {
      const current = await readPolicy(client, input.kind, ctx.signal);
      if (ctx.idempotencyKey && current.key === ctx.idempotencyKey)
        return { kind: input.kind, revision: current.revision, settings: current.settings };
      const next = {
        revision: current.revision + 1,
        settings: { ...current.settings, ...input.settings },
        key: ctx.idempotencyKey ?? null,
      };
      await client.call('userconfig.set', {
        pathParams: { key: policyKey(input.kind) },
        body: next,
        signal: ctx.signal,
      });
      return { kind: input.kind, revision: next.revision, settings: next.settings };
    }),
  };
}

/** The user-configuration key a policy kind is kept under. @internal */
const policyKey = (kind: string) => `media_agent_policy_${kind}`;

/** Reads a policy kind from the host\'s user configuration (revision 0 and no settings when unset). */
async function readPolicy(
  client: V2HostClient,
  kind: string,
  signal: AbortSignal,
): Promise<{ revision: number; settings: Record<string, unknown>; key: string | null }> {
  const data = await client.call<{
    value?: { revision?: number; settings?: Record<string, unknown>; key?: string | null } | null;
  }>('userconfig.get', { pathParams: { key: policyKey(kind) }, signal });
  const v = data?.value;
  return { revision: v?.revision ?? 0, settings: v?.settings ?? {}, key: v?.key ?? null };
}
