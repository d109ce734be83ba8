// `update_plan`: the run's checklist.
import type { JsonValue } from '../../core/records';
import { UPDATE_PLAN_MODEL_TOOL, UPDATE_PLAN_TOOL, validateChecklist, type RunChecklist } from '../checklist';
import type { RuntimeTool } from './runtime-tool';

/** `update_plan`: replaces the run's checklist and emits `checklist_updated`. */
export function updatePlanTool(): RuntimeTool {
  return {
    name: UPDATE_PLAN_TOOL,
    modelTool: UPDATE_PLAN_MODEL_TOOL,
    discoveryOnly: false,
    available: () => true,
    async run({ session, call }) {
      const problems = validateChecklist(call.input);
      if (problems.length > 0)
        return { result: { status: 'failed', error: { code: 'CHECKLIST_INVALID', message: problems.join('; ') } } };
      session.patch({ checklist: call.input as JsonValue });
      session.emit('checklist_updated', { checklist: call.input as RunChecklist });
      return { result: { status: 'succeeded', output: { saved: true } } };
    },
  };
}
