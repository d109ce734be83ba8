// What a person is told to do when an automatic recovery is not possible or did not take, and the recheck option offered then.
import type { CapabilityRegistry } from '../../capabilities/capability-registry';
import type { DecisionOption, DecisionRecord } from '../../core/run-records';

/**
 * The decision's options with a ready-to-choose forced recheck of its download, when it is about one and
 * `download.recheck` is registered (an option `recheck` already offered is kept as it is).
 * @param d - the decision
 * @param capabilities - the registry
 * @internal
 */
export function withRecheckOption(
  d: Pick<DecisionRecord, 'subjectType' | 'subjectId' | 'options'>,
  capabilities: Pick<CapabilityRegistry, 'has'>,
): DecisionOption[] {
  if (d.subjectType !== 'download' || !capabilities.has('download.recheck')) return d.options;
  if (d.options.some((o) => o.id === 'recheck')) return d.options;
  return [
    ...d.options,
    {
      id: 'recheck',
      label: `Force a recheck of download ${d.subjectId}`,
      capabilityId: 'download.recheck',
      input: { downloadId: d.subjectId, action: 'recheck' },
    },
  ];
}

/**
 * The suggestion for a person when no standing grant lets a recovery run.
 * @param d - the decision
 * @internal
 */
export function noGrantSuggestion(d: Pick<DecisionRecord, 'kind' | 'subjectId'>): string {
  if (d.kind === 'identity_ambiguous') return 'choose the right title for it (identity.resolve)';
  return `force a recheck of download ${d.subjectId} (option "recheck"), or grant download.recheck for automatic recovery`;
}

/**
 * The suggestion for a person after a recovery run that did not verify a recovery.
 * @param outcome - the recovery's outcome (`failed`, `timed_out`, `over_budget`, `no_action`, `run_failed` …)
 * @param denied - a recovery action was denied
 * @internal
 */
export function recoverSuggestion(outcome: string, denied: boolean): string {
  if (denied) return 'the recovery action was denied: check the standing grants, or choose the recheck option';
  switch (outcome) {
    case 'failed':
      return 'the recovery did not take: the download was removed or failed again; look at the downloader';
    case 'timed_out':
      return 'the download did not move again within the verification time; look at the downloader or its files';
    case 'over_budget':
      return 'the investigation ran out of budget before it could verify a recovery; a person should look at it';
    case 'no_action':
      return 'no recovery action was taken; see the conclusion';
    default:
      return 'the investigation ended without a verified recovery; see the conclusion';
  }
}
