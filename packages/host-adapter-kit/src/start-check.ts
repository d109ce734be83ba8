import type { AgentHost } from '@media-agent/sdk';

/**
 * Makes `host.start()` run `check` first (once: later starts reuse its success; a failed check runs
 * again on the next start), so that an unreachable host or refused credentials fail the start with
 * their own typed error instead of a run failing later.
 * @param host - the SDK host whose `start` is wrapped
 * @param check - connectivity and credential check; what it throws, `start()` throws
 */
export function startAfter(host: AgentHost, check: () => Promise<void>): void {
  const sdkStart = host.start.bind(host);
  let checked: Promise<void> | undefined;
  (host as { start: AgentHost['start'] }).start = async (startOptions) => {
    checked ??= check().catch((error: unknown) => {
      checked = undefined;
      throw error;
    });
    await checked;
    return sdkStart(startOptions);
  };
}
