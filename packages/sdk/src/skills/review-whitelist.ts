// What a background review may execute: the tool schemas it sees are the conversation's, but only
// skill tools (and `memory` when a memory review is due) run; reads are mapped onto `skill_view`.

/** The decision for one call of a review. */
export type ReviewDispatch =
  | { readonly kind: 'skill'; readonly tool: 'skills_list' | 'skill_view' | 'skill_manage'; readonly input: unknown }
  | { readonly kind: 'memory'; readonly input: unknown }
  | { readonly kind: 'deny'; readonly message: string };

/** What a denied call is told: the substitutes, so one denial redirects the model. */
export const REVIEW_DENIAL =
  'This is a background learning review: only skills_list, skill_view and skill_manage run here (and memory when a memory review is due). Read skills with skill_view; nothing else is executed.';

/** What a `memory` call is told in a skills-only review. */
export const MEMORY_UNAVAILABLE = 'this review is skills-only; memory unavailable';

const obj = (v: unknown): Record<string, unknown> =>
  v !== null && typeof v === 'object' ? (v as Record<string, unknown>) : {};

/**
 * Decides one call of a review by tool name.
 * @param name - the tool the model called
 * @param input - its arguments
 * @param memoryDue - whether this review includes memory
 * @param skillNames - names of the skills the user can see (a `read_file` inside one maps to `skill_view`)
 */
export function reviewDispatch(
  name: string,
  input: unknown,
  memoryDue: boolean,
  skillNames: ReadonlySet<string>,
): ReviewDispatch {
  if (name === 'skills_list' || name === 'skill_view' || name === 'skill_manage')
    return { kind: 'skill', tool: name, input };
  if (name === 'memory') return memoryDue ? { kind: 'memory', input } : { kind: 'deny', message: MEMORY_UNAVAILABLE };
  if (name === 'read_skill') {
    const i = obj(input);
    return {
      kind: 'skill',
      tool: 'skill_view',
      input: { name: i.name, ...(i.file_path !== undefined ? { file_path: i.file_path } : {}) },
    };
  }
  if (name === 'read_file') {
    const path = obj(input).path;
    const m =
      typeof path === 'string' ? /^(?:[a-z0-9][a-z0-9_-]{0,63}\/)?([a-z0-9][a-z0-9_-]{0,63})\/(.+)$/.exec(path) : null;
    if (m && skillNames.has(m[1]!))
      return { kind: 'skill', tool: 'skill_view', input: { name: m[1], file_path: m[2] } };
  }
  return { kind: 'deny', message: REVIEW_DENIAL };
}
