// The steps of a plan a person may approve in part.
import { describe, expect, it } from 'vitest';
import { canonicalHash } from '../../src/storage';
import { planSteps } from '../../src/index';

describe('planSteps', () => {
  it('one step per item of payload.steps, each hashed on its own, labelled for people', () => {
    const steps = [{ id: 'f1', label: 'Dune.mkv', bytes: 1 }, { id: 'f2', name: 'extras.mkv' }, { id: 'f3' }];
    expect(planSteps({ title: 'Dune', steps })).toEqual([
      { id: 'f1', hash: canonicalHash(steps[0]), label: 'Dune.mkv' },
      { id: 'f2', hash: canonicalHash(steps[1]), label: 'extras.mkv' },
      { id: 'f3', hash: canonicalHash(steps[2]), label: 'f3' },
    ]);
  });
  it('a change to one step changes only its hash', () => {
    const a = planSteps({
      steps: [
        { id: 'a', n: 1 },
        { id: 'b', n: 2 },
      ],
    });
    const b = planSteps({
      steps: [
        { id: 'a', n: 1 },
        { id: 'b', n: 3 },
      ],
    });
    expect(a[0]!.hash).toBe(b[0]!.hash);
    expect(a[1]!.hash).not.toBe(b[1]!.hash);
  });
  it('no steps for anything else: no array, an empty one, duplicate or missing ids, non-objects', () => {
    for (const payload of [
      null,
      'x',
      [],
      { steps: [] },
      { steps: 'a' },
      { steps: [{ id: 'a' }, { id: 'a' }] },
      { steps: [{ id: '' }] },
      { steps: [{ name: 'x' }] },
      { steps: [1] },
    ])
      expect(planSteps(payload)).toEqual([]);
  });
});
