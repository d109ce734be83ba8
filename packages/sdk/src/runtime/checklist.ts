import Type, { type Static } from 'typebox';
import { compileSchema } from '../capabilities/schema-validator';
import { providerSafeTool } from '../models/provider-schema';
import type { ModelTool } from '../models/types';

/** Name of the built-in plan tool. @public */
export const UPDATE_PLAN_TOOL = 'update_plan';

/** Schema of a run plan: a goal and steps, each with a status; completed and blocked steps need evidence. @public */
export const RunChecklistSchema = Type.Object(
  {
    goal: Type.String({ minLength: 1, maxLength: 2000, description: 'What the run is trying to achieve.' }),
    steps: Type.Array(
      Type.Object(
        {
          title: Type.String({ minLength: 1, maxLength: 500 }),
          status: Type.Union([
            Type.Literal('pending'),
            Type.Literal('in_progress'),
            Type.Literal('completed'),
            Type.Literal('blocked'),
          ]),
          evidence: Type.Optional(
            Type.String({
              maxLength: 2000,
              description: 'Required for completed and blocked: the tool result that shows it.',
            }),
          ),
        },
        { additionalProperties: false },
      ),
      { maxItems: 50 },
    ),
  },
  { additionalProperties: false },
);

/**
 * A run's checklist (`update_plan` input, the `checklist_updated` event payload): the run's goal and its steps;
 * `evidence` is the tool result that shows a `completed` or `blocked` step.
 * @public
 */
export interface RunChecklist {
  /** What the run is trying to achieve (1–2000 characters). */
  goal: string;
  /** At most 50 steps, in order. */
  steps: Array<{ title: string; status: 'pending' | 'in_progress' | 'completed' | 'blocked'; evidence?: string }>;
}

// RunChecklist is written out (not `Static<typeof RunChecklistSchema>`) so the public type needs no schema
// value; this line fails to compile when the two drift apart.
type SameShape<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type RunChecklistMatchesSchema<T extends true> = T;
type _Check = RunChecklistMatchesSchema<SameShape<RunChecklist, Static<typeof RunChecklistSchema>>>;

/**
 * Validates a plan: the schema, plus the rule that `completed` and `blocked` steps carry evidence
 *.
 * @returns the problems found (empty when valid)
 * @public
 */
export function validateChecklist(plan: unknown): string[] {
  const check = compileSchema(RunChecklistSchema);
  if (!check.check(plan)) return check.issues(plan).map((i) => `${i.path || '/'}: ${i.message}`);
  return (plan as RunChecklist).steps.flatMap((step, i) =>
    (step.status === 'completed' || step.status === 'blocked') && !step.evidence?.trim()
      ? [`/steps/${i}: a ${step.status} step needs evidence`]
      : [],
  );
}

/** The plan tool as offered to the model (schema in the form every provider family accepts, validated against {@link RunChecklistSchema}). @public */
export const UPDATE_PLAN_MODEL_TOOL: ModelTool = providerSafeTool({
  name: UPDATE_PLAN_TOOL,
  description:
    'Replace the plan of this run: the goal and its steps with status pending, in_progress, completed or blocked. Completed and blocked steps must cite evidence from tool results. Keep it current as you work.',
  inputSchema: RunChecklistSchema as unknown as Record<string, unknown>,
});
