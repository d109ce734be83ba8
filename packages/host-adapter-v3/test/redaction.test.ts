// The adapter's MoviePilot credentials are secrets of the host's one redaction step (docs/secrets.md).
import { Tokens, type Logger } from '@media-agent/sdk';
import { MemoryStorage } from '@media-agent/sdk/storage';
import { createV3AgentHost } from '@media-agent/host-adapter-v3';
import { describe, expect, it } from 'vitest';

const lines: string[] = [];
const logger: Logger = {
  debug: (m, f) => lines.push(JSON.stringify({ m, f })),
  info: (m, f) => lines.push(JSON.stringify({ m, f })),
  warn: (m, f) => lines.push(JSON.stringify({ m, f })),
  error: (m, f) => lines.push(JSON.stringify({ m, f })),
};

describe('V3 adapter credentials are redacted', () => {
  it.each([
    ['the API token', { apiKey: 'v3-api-token-0123456789' }, 'v3-api-token-0123456789'],
    ['the password (never the user name)', { username: 'alice', password: 'alice-pass-4321' }, 'alice-pass-4321'],
  ])(
    '%s is removed by the host redactor and from log lines; the secrets of the host option stay registered',
    (_n, auth, secret) => {
      const v3 = createV3AgentHost({
        url: 'http://127.0.0.1:9',
        auth,
        storage: new MemoryStorage(),
        logger,
        redact: { secrets: ['host-extra-secret-77'] },
      });
      const redactor = v3.container.resolve(Tokens.SecretRedactor);
      expect(redactor.text(`X-API-KEY ${secret} refused for alice; host-extra-secret-77`)).toBe(
        'X-API-KEY [REDACTED] refused for alice; [REDACTED]',
      );
      v3.container.resolve(Tokens.Logger).warn(`login with ${secret} failed`, { auth });
      expect(lines.join('\n')).not.toContain(secret);
      expect(lines.join('\n')).toContain('login with [REDACTED] failed');
    },
  );
});
