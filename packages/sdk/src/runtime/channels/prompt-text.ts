// The text of an approval prompt and of a choice prompt on a channel (docs/channels.md#approvals-and-choices-by-button).
import type { JsonValue } from '../../core/records';
import type { RunEventPayloads } from '../events/run-event';

/** Most plan steps listed in a prompt; the rest are counted. */
const MAX_STEPS_SHOWN = 10;

/**
 * The preview of an approval: what is asked (capability, plan), its impact in one line, the plan's steps; then how
 * to answer — the buttons, or `reply YES <code> or NO <code>` when `code` is given (a channel without buttons).
 * @public
 */
export function approvalPromptText(request: RunEventPayloads['approval_requested'], code?: string): string {
  const lines = [`Approval needed: ${request.capabilityId} (${request.planType} plan ${request.planId})`];
  if (request.impact) lines.push(`Impact: ${request.impact.summary}`);
  const steps = request.steps ?? [];
  if (steps.length > 0) {
    lines.push('Steps:');
    for (const s of steps.slice(0, MAX_STEPS_SHOWN)) lines.push(`- ${s.label}`);
    if (steps.length > MAX_STEPS_SHOWN) lines.push(`… and ${steps.length - MAX_STEPS_SHOWN} more`);
  }
  lines.push(
    code !== undefined
      ? `Reply YES ${code} to approve or NO ${code} to reject.`
      : 'Approve or reject with the buttons.',
  );
  return lines.join('\n');
}

/**
 * The options of an `input_requested` event as the texts a person picks from: a string as it is; a title candidate
 * (`{ title, year, mediaEntityId }`) as `Title (year, id)`, which names it for the goal-target rule; anything else as
 * its JSON.
 * @public
 */
export function choiceOptions(options: JsonValue): string[] {
  if (!Array.isArray(options)) return [];
  return options.map((o) => {
    if (typeof o === 'string') return o;
    if (typeof o === 'object' && o !== null && !Array.isArray(o) && typeof o.title === 'string') {
      const year = typeof o.year === 'number' ? String(o.year) : 'year unknown';
      const id = typeof o.mediaEntityId === 'string' ? `, ${o.mediaEntityId}` : '';
      return `${o.title} (${year}${id})`;
    }
    return JSON.stringify(o);
  });
}

/**
 * The text of a choice prompt: the question, then the numbered options, then how to answer — the buttons, or a
 * reply with the option's words (a channel without buttons).
 * @public
 */
export function choicePromptText(question: string, options: readonly string[], buttons: boolean): string {
  const lines = [question, ...options.map((o, i) => `${i + 1}. ${o}`)];
  lines.push(buttons ? 'Choose with a button.' : 'Reply with the title of your choice.');
  return lines.join('\n');
}
