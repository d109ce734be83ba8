// Scripted-model scenarios for background learning reviews: a host tests its review prompts and
// wiring without a network.
import type { FakeScript, ScriptStep } from '../models/scripted';
import type { SkillOperation } from '../ports/skill-store';

/** What the scripted review model does, turn by turn. @public */
export interface LearningReviewScenario {
  /** Text that picks the review among the scripts (a phrase of the review prompt). @defaultValue `'background review'` */
  readonly match?: string;
  /** Skill files to view first (`skill_view`), as `name` or `name/file_path`. */
  readonly views?: readonly string[];
  /** `memory` calls, one per turn (their input as the host's memory tool takes it). */
  readonly memory?: readonly Record<string, unknown>[];
  /** `skill_manage` calls, one per turn (each a batch of operations). */
  readonly skills?: readonly (readonly SkillOperation[])[];
  /** Calls the review should be refused (e.g. a business capability), one per turn. */
  readonly forbidden?: readonly { readonly capability: string; readonly input?: Record<string, unknown> }[];
  /** The review's last reply. @defaultValue `'Nothing to save.'` */
  readonly finalText?: string;
}

/**
 * A {@link FakeScript} for `ScriptedProvider` that plays a background learning review: views, then
 * memory writes, then skill batches, then refused calls, then the final reply. Put it before the
 * conversation's scripts (the first script whose `match` fits the latest user message plays).
 * @example
 * ```ts
 * const provider = new ScriptedProvider({ scripts: [
 *   learningReviewScript({ views: ['subtitles'], skills: [[{ action: 'patch', name: 'subtitles', old_string: 'SRT', new_string: 'SRT, then ASS' }]] }),
 *   { match: 'subtitles', finalText: 'Done.' },
 * ] });
 * ```
 * @public
 */
export function learningReviewScript(scenario: LearningReviewScenario): FakeScript {
  const steps: ScriptStep[] = [
    ...(scenario.views ?? []).map((v): ScriptStep => {
      const [name, ...rest] = v.split('/');
      return {
        toolCalls: [
          { capability: 'skill_view', input: { name, ...(rest.length > 0 ? { file_path: rest.join('/') } : {}) } },
        ],
      };
    }),
    ...(scenario.memory ?? []).map(
      (input): ScriptStep => ({ toolCalls: [{ capability: 'memory', input: { ...input } }] }),
    ),
    ...(scenario.skills ?? []).map(
      (operations): ScriptStep => ({
        toolCalls: [{ capability: 'skill_manage', input: { operations: operations.map((o) => ({ ...o })) } }],
      }),
    ),
    ...(scenario.forbidden ?? []).map(
      (f): ScriptStep => ({ toolCalls: [{ capability: f.capability, input: { ...(f.input ?? {}) } }] }),
    ),
  ];
  return {
    name: 'learning-review',
    match: scenario.match ?? 'background review',
    steps,
    finalText: scenario.finalText ?? 'Nothing to save.',
  };
}
