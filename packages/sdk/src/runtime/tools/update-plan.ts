// `update_plan`: the run's plan.
import type { JsonValue } from '../../core/records';
import { UPDATE_PLAN_MODEL_TOOL, UPDATE_PLAN_TOOL, validatePlan } from '../checklist';
import type { RuntimeTool } from './runtime-tool';

/** `update_plan`: replaces the run's plan and emits `plan_updated`. */
export function updatePlanTool(): RuntimeTool {
  return {
    name: UPDATE_PLAN_TOOL,
    modelTool: UPDATE_PLAN_MODEL_TOOL,
    discoveryOnly: false,
    available: () => true,
    async run({ session, call }) {
      const problems = validatePlan(call.input);
      if (problems.length > 0) return { result: { status: 'failed', error: { code: 'PLAN_INVALID', message: problems.join('; ') } } };
      session.patch({ plan: call.input as JsonValue });
      session.emit('plan_updated', { plan: call.input as JsonValue });
      return { result: { status: 'succeeded', output: { saved: true } } };
    },
  };
}
