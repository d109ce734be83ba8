// The steps of a plan a person may approve in part: the items of its payload's top-level `steps` array, each an
// object with a string `id`, each hashed on its own (docs/approvals.md#approving-some-steps).
import { canonicalHash } from './canonical-json';

/**
 * One step of a plan: its id (unique in the plan), the SHA-256 of its canonical JSON (an approval of the step binds
 * to it) and a label for people (the step's `label`, `name` or `title`, else its id).
 * @public
 */
export interface PlanStep {
  /** The step's id, from the payload. */
  id: string;
  /** SHA-256 (hex) of the step's canonical JSON. */
  hash: string;
  /** What people read for the step. */
  label: string;
}

/**
 * The steps of a plan payload: the items of `payload.steps` when it is an array of objects that each have a
 * distinct, non-empty string `id`; `[]` for any other payload (a plan of one step, approved whole).
 * @public
 */
export function planSteps(payload: unknown): PlanStep[] {
  if (payload === null || typeof payload !== 'object' || Array.isArray(payload)) return [];
  const steps = (payload as Record<string, unknown>).steps;
  if (!Array.isArray(steps) || steps.length === 0) return [];
  const seen = new Set<string>();
  const out: PlanStep[] = [];
  for (const step of steps) {
    if (step === null || typeof step !== 'object' || Array.isArray(step)) return [];
    const id = (step as Record<string, unknown>).id;
    if (typeof id !== 'string' || id.length === 0 || seen.has(id)) return [];
    seen.add(id);
    const named = ['label', 'name', 'title']
      .map((k) => (step as Record<string, unknown>)[k])
      .find((v): v is string => typeof v === 'string' && v.length > 0);
    out.push({ id, hash: canonicalHash(step), label: (named ?? id).slice(0, 300) });
  }
  return out;
}
