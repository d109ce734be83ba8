// Found by trying the SDK as a new user would (README and docs only); each case failed before its fix.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createAgentHost } from '@media-agent/sdk';
import { historyUserKey } from '@media-agent/sdk/history';

describe('trial: person ids', () => {
  // Control characters, a lone surrogate, a zero-width space and a bidi override name a new person
  // that prints as "alice" (U+FEFF and NBSP are already refused as whitespace).
  it.each(['alice\u0000', '\u0007', 'alice\u200b', '\u202ealice', '\ud800'])('refuses %j', async (id) => {
    expect(() => historyUserKey(id)).toThrow(expect.objectContaining({ code: 'PERSON_ID_INVALID' }));
    const host = createAgentHost({ memory: { dataDir: mkdtempSync(join(tmpdir(), 'trial-pid-')) } });
    await host.start();
    await expect(host.memory!.write(id, { action: 'add', target: 'user', content: 'x' })).rejects.toMatchObject({
      code: 'PERSON_ID_INVALID',
    });
    await host.stop();
  });
});
