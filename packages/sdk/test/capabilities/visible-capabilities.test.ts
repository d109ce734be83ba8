// The one rule both lists use (MCP tools/list, GET /api/capabilities): admin-only capabilities only to admins.
import { describe, expect, it } from 'vitest';
import { capabilityVisibleTo, visibleCapabilities } from '../../src/capabilities/visible-capabilities';

const caps = [
  { id: 'catalog.lookup' },
  { id: 'users.export', adminOnly: true },
  { id: 'download.submit', adminOnly: false },
  { id: 'users.reset', adminOnly: true },
];

describe('visibleCapabilities', () => {
  it('an administrator sees every capability, in order', () => {
    expect(visibleCapabilities(caps, 'admin').map((c) => c.id)).toEqual([
      'catalog.lookup',
      'users.export',
      'download.submit',
      'users.reset',
    ]);
  });

  it('an ordinary user sees everything but the admin-only capabilities', () => {
    expect(visibleCapabilities(caps, 'user').map((c) => c.id)).toEqual(['catalog.lookup', 'download.submit']);
  });

  it('only adminOnly: true hides; absent or false never does; the input is not changed', () => {
    expect(capabilityVisibleTo({}, 'user')).toBe(true);
    expect(capabilityVisibleTo({ adminOnly: false }, 'user')).toBe(true);
    expect(capabilityVisibleTo({ adminOnly: true }, 'user')).toBe(false);
    expect(capabilityVisibleTo({ adminOnly: true }, 'admin')).toBe(true);
    const copy = [...caps];
    expect(visibleCapabilities(caps, 'user')).not.toBe(caps);
    expect(caps).toEqual(copy);
  });
});
