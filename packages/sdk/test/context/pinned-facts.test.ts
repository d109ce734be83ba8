import { describe, expect, it } from 'vitest';
import { renderPinnedFacts } from '../../src/runtime/context/pinned-facts';

describe('pinned facts', () => {
  it('render nothing when there are none', () => {
    expect(renderPinnedFacts(undefined)).toBe('');
    expect(renderPinnedFacts({})).toBe('');
    expect(renderPinnedFacts({ checklist: null, unknownWrites: [], pendingApprovals: [], notes: [], goal: '' })).toBe(
      '',
    );
  });

  it('render each fact verbatim under its heading, in a fixed order', () => {
    const text = renderPinnedFacts({
      notes: ['keep 4K'],
      pendingApprovals: [{ id: 'ap_1' }],
      unknownWrites: [{ capability: 'download.submit' }],
      checklist: [{ step: 'find', done: true }],
      goal: 'Add Dune',
    });
    expect(text).toBe(
      [
        '## Pinned facts (verbatim, still current)',
        '### Goal\nAdd Dune',
        '### Current plan\n[{"step":"find","done":true}]',
        '### Writes whose outcome is still unknown (verify with a read before retrying; never assume success or failure)\n- {"capability":"download.submit"}',
        '### Approvals still pending (wait for the decision)\n- {"id":"ap_1"}',
        '### Notes\n- keep 4K',
      ].join('\n'),
    );
  });
});
