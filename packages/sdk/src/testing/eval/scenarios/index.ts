import type { AnyEvalScenario } from '../scenario';
import { ambiguousTitle } from './ambiguous-title';
import { approvalRequired } from './approval-required';
import { dedupExisting } from './dedup-existing';
import { honestUnknown } from './honest-unknown';
import { longContext } from './long-context';
import { steeringMidRun } from './steering-mid-run';
import { subagentStatus } from './subagent-status';
import { unknownDownload } from './unknown-download';

export {
  ambiguousTitle,
  approvalRequired,
  dedupExisting,
  honestUnknown,
  longContext,
  steeringMidRun,
  subagentStatus,
  unknownDownload,
};

/**
 * The eight shipped scenarios, by id.
 * @public
 */
export const STANDARD_SCENARIOS: Readonly<Record<string, AnyEvalScenario>> = Object.freeze(
  Object.fromEntries(
    [
      dedupExisting,
      unknownDownload,
      honestUnknown,
      ambiguousTitle,
      longContext,
      steeringMidRun,
      subagentStatus,
      approvalRequired,
    ].map((s) => [s.id, s as AnyEvalScenario]),
  ),
);
