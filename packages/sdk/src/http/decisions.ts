import type { JsonValue } from '../core/records';
import type { DecisionRecord } from '../core/run-records';
import type { AgentHost } from '../runtime/agent-host';
import { HttpRequestError } from './problem';

/** A decision as the HTTP surface shows it: what is asked, and the options a person can choose. @public */
export interface HttpDecision {
  /** Decision id. */
  id: string;
  /** Kind, e.g. `agent_budget`. */
  kind: string;
  /** What it is about, e.g. a run id (the router shows a non-admin only decisions about their runs). */
  subjectId: string;
  /** `open` until a person resolves it. */
  status: 'open' | 'resolved';
  /** Why a person is asked, in words. */
  reason: string;
  /** The option ids a person may choose (empty when the decision cannot be resolved over HTTP). */
  options: string[];
  /** Facts for the person. */
  data: JsonValue;
  /** Creation time (ms since epoch). */
  createdAt: number;
  /** Resolution time (ms since epoch), or null. */
  resolvedAt: number | null;
}

/**
 * Where the router reads decisions and records a person's choice: a small interface so a host can plug in
 * a richer decisions feature; the default ({@link hostDecisions}) serves the host's budget decisions.
 * @public
 */
export interface HttpDecisionSource {
  /** Decisions, newest first, optionally by status. */
  list(filter: { status?: 'open' | 'resolved' }): Promise<HttpDecision[]>;
  /**
   * Records `actor`'s choice of `option` for decision `id` and returns the decision as it is now.
   * @throws a `MediaAgentError`: `HTTP_DECISION_NOT_FOUND` (or another `*_NOT_FOUND` code) for an unknown decision, `HTTP_DECISION_UNSUPPORTED`
   *   when it cannot be resolved this way, `REQUEST_INVALID` for an option it does not offer
   */
  choose(id: string, option: string, actor: string): Promise<HttpDecision>;
}

/**
 * The default decision source: the host's stored decisions (`host.decisions()`, e.g. a run that exceeded a
 * budget). They are listed with no options: the host resolves them in its own way, so choosing one is
 * refused with `HTTP_DECISION_UNSUPPORTED` (501) and nothing is written.
 * @param host - the agent host
 * @public
 */
export function hostDecisions(host: Pick<AgentHost, 'decisions'>): HttpDecisionSource {
  const view = (d: DecisionRecord): HttpDecision => ({
    id: d.id,
    kind: d.kind,
    subjectId: d.subjectId,
    status: d.status,
    reason: d.reason,
    options: [],
    data: d.data,
    createdAt: d.createdAt,
    resolvedAt: d.resolvedAt,
  });
  return {
    list: async (filter) => (await host.decisions(filter.status ? { status: filter.status } : {})).map(view),
    async choose(id) {
      const found = (await host.decisions()).find((d) => d.id === id);
      if (!found) throw new HttpRequestError('HTTP_DECISION_NOT_FOUND', `no decision with id ${JSON.stringify(id)}`);
      throw new HttpRequestError('HTTP_DECISION_UNSUPPORTED', `decision ${id} offers no option to choose over HTTP`, {
        decisionId: id,
        kind: found.kind,
      });
    },
  };
}
