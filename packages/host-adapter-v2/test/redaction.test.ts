// The adapter's MoviePilot credentials are secrets of the host's one redaction step (docs/secrets.md).
import { Tokens } from '@media-agent/sdk';
import { MemoryStorage } from '@media-agent/sdk/storage';
import { createV2AgentHost } from '@media-agent/host-adapter-v2';
import { describe, expect, it } from 'vitest';

describe('V2 adapter credentials are redacted', () => {
  it('the API token, password and one-time password are registered; the user name is not', () => {
    const v2 = createV2AgentHost({
      url: 'http://127.0.0.1:9',
      auth: {
        apiKey: 'v2-api-token-0123456789',
        username: 'bob-the-user',
        password: 'bob-pass-8765',
        otpPassword: '246813',
      },
      storage: new MemoryStorage(),
    });
    const redactor = v2.container.resolve(Tokens.SecretRedactor);
    expect(redactor.text('token v2-api-token-0123456789, user bob-the-user, password bob-pass-8765, otp 246813')).toBe(
      'token [REDACTED], user bob-the-user, password [REDACTED], otp [REDACTED]',
    );
  });
});
