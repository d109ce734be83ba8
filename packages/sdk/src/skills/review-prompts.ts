// What a background learning review is asked to do. No quota: writing nothing is a valid outcome.

const COMMON =
  'This is a background review of the conversation above. Do not continue the task and do not write to the user. Save only what is new, durable and evidenced by this conversation; an unverified fix is never saved as a reliable method. If nothing qualifies, reply "Nothing to save." and stop — that is a valid result.';

/** The memory part: USER.md for who the user is, MEMORY.md for the environment; each fact in one place. */
export const MEMORY_REVIEW_PROMPT = `${COMMON}
Memory: USER.md holds who the user is (preferences, style, expectations); MEMORY.md holds facts about the environment (tool quirks, conventions, paths, endpoints). Put each fact in exactly one of them, once. Never store one-off requests, task logs, temporary state or credentials.`;

/** The skill part: class-level skills, procedure first, patch before create, read before write. */
export const SKILL_REVIEW_PROMPT = `${COMMON}
Skills: keep them class-level — a SKILL.md of rules that always apply plus a few topical files under references/. Write the procedure first; a pitfall is a general rule with one clause of why; no dates, ticket numbers or quotes; fix wrong sentences in place. Signals worth keeping: a style or workflow correction by the user, a non-trivial technique that worked, a skill that turned out wrong. Prefer, in order: patch a skill used in this conversation that you maintain, patch an existing class skill, add a support file and point to it from SKILL.md, and only then create a new class-level skill (never named after this conversation's artefacts). View a file with skill_view before changing it; if told it changed, view it once more and retry once. Skills you may not change (public, pinned, or the user's own): suggest "/skills adopt <name>" instead. Never record environment-specific failures, transient errors, negative claims about tools or one-off stories.`;

/** The prompt for the reviews that are due (memory, skills or both). @public */
export function reviewPrompt(due: { memory: boolean; skills: boolean }): string {
  if (due.memory && due.skills)
    return `${MEMORY_REVIEW_PROMPT}\n${SKILL_REVIEW_PROMPT.slice(COMMON.length + 1)}\nA user preference belongs in the skill that governs the task when one exists, and in USER.md only when it cuts across tasks — never both.`;
  return due.memory ? MEMORY_REVIEW_PROMPT : SKILL_REVIEW_PROMPT;
}
