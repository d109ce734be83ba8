import type { JsonValue } from '../core/records';
import type { DecisionRecord, DecisionStatus } from '../core/run-records';
import type { AgentHost } from '../runtime/agent-host';

/**
 * Where the router reads decisions and records a person's answer: a small interface over the host's
 * decisions (docs/decisions.md), so a host may put its own source (filtering, a different store) in front.
 * The default is {@link hostDecisions}.
 * @public
 */
export interface HttpDecisionSource {
  /** Decisions, newest first, optionally by status. */
  list(filter: { status?: DecisionStatus }): Promise<DecisionRecord[]>;
  /**
   * A decision by id.
   * @throws a `MediaAgentError` `DECISION_NOT_FOUND`
   */
  get(id: string): Promise<DecisionRecord>;
  /**
   * `actor` chooses option `optionId`: the decision as it is now, and what executing the option did.
   * @throws a `MediaAgentError`: `DECISION_NOT_FOUND`, `DECISION_OPTION_NOT_FOUND`, `DECISION_CLOSED`, `ADMIN_FORBIDDEN`
   */
  choose(
    id: string,
    optionId: string,
    actor: string,
    note?: string,
  ): Promise<{ decision: DecisionRecord; execution: JsonValue }>;
  /**
   * `actor` dismisses the decision without action.
   * @throws a `MediaAgentError`: `DECISION_NOT_FOUND`, `DECISION_CLOSED`, `ADMIN_FORBIDDEN`
   */
  dismiss(id: string, actor: string, note?: string): Promise<DecisionRecord>;
}

/**
 * The default decision source: the host's own decisions — `host.decisions()`, `host.getDecision()`,
 * `host.chooseDecisionOption()` (the option's capability runs through the one invocation path as the person
 * who chose) and `host.dismissDecision()`.
 * @param host - the agent host
 * @public
 */
export function hostDecisions(
  host: Pick<AgentHost, 'decisions' | 'getDecision' | 'chooseDecisionOption' | 'dismissDecision'>,
): HttpDecisionSource {
  return {
    list: (filter) => host.decisions(filter.status ? { status: filter.status } : {}),
    get: (id) => host.getDecision(id),
    choose: async (id, optionId, actor, note) => {
      const { decision, execution } = await host.chooseDecisionOption(id, optionId, {
        actor,
        ...(note !== undefined ? { note } : {}),
      });
      return { decision, execution };
    },
    dismiss: (id, actor, note) => host.dismissDecision(id, { actor, ...(note !== undefined ? { note } : {}) }),
  };
}
