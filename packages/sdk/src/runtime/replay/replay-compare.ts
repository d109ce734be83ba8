// Where a replay diverged from the stored run: a pure function of the two recordings.
import { canonicalJson } from '../../core/canonical-json';
import type { JsonValue } from '../../core/records';
import type { RecordedCall, RecordedRun, RecordedTurn } from './recorded-run';

/**
 * One place a replay went another way than the stored run:
 * `tool_call` — a call differs (capability, input or outcome) or is missing / extra;
 * `verdict` — authorization (or the loop guard) allowed what it had denied, or the reverse, or denied with another code;
 * `report` — the verified goal report's status differs;
 * `capability_missing` — the run called a capability the current runtime no longer has;
 * `turns` — the replay ended before or after the recorded turns.
 * `turn` is the 0-based model turn (of the subagent, when the message names one); `stored` / `replayed` what each had.
 * @public
 */
export interface ReplayDivergence {
  /** What diverged. */
  kind: 'tool_call' | 'verdict' | 'report' | 'capability_missing' | 'turns';
  /** 0-based model turn. */
  turn: number;
  /** 0-based position of the call in the turn. */
  callIndex?: number;
  /** The capability concerned. */
  capabilityId?: string;
  /** What the stored run had. */
  stored: JsonValue;
  /** What the replay had. */
  replayed: JsonValue;
  /** The divergence for people. */
  message: string;
}

/** What the comparison needs of a replay besides its recording. @public */
export interface ReplayOutcome {
  /** The replayed run, read back like the stored one. */
  replayed: Pick<RecordedRun, 'turns' | 'subagents' | 'finalText' | 'report'>;
  /** Capability ids the current runtime does not have. */
  missing: readonly string[];
}

const REFUSED = new Set(['denied', 'blocked']);

/**
 * The divergences between a stored run and its replay, in order: missing capabilities, then per turn and call
 * (the run's, then each subagent's), then the turn count, then the report status. Empty when the replay went the
 * same way.
 *
 * @param stored - the stored run (`readRecordedRun`)
 * @param outcome - the replay (`replayRecordedRun`): its recording and the missing capabilities
 * @returns the divergences (empty: same)
 * @example
 * ```ts
 * const divergences = compareReplay(recorded, await replayRecordedRun(recorded, { capabilities: host.capabilities }));
 * for (const d of divergences) console.log(d.kind, d.turn, d.message);
 * ```
 * @public
 */
export function compareReplay(
  stored: Pick<RecordedRun, 'turns' | 'subagents' | 'finalText' | 'report'>,
  outcome: ReplayOutcome,
): ReplayDivergence[] {
  const out: ReplayDivergence[] = [];
  const missing = new Set(outcome.missing);
  const reported = new Set<string>();
  const parts: Array<{
    who: string;
    stored: RecordedTurn[];
    replayed: RecordedTurn[];
    storedFinal: boolean;
    replayedFinal: boolean;
  }> = [
    {
      who: '',
      stored: stored.turns,
      replayed: outcome.replayed.turns,
      storedFinal: stored.finalText !== null,
      replayedFinal: outcome.replayed.finalText !== null,
    },
  ];
  stored.subagents.forEach((s, i) => {
    const r = outcome.replayed.subagents.find((x) => x.goal === s.goal) ?? outcome.replayed.subagents[i];
    parts.push({
      who: `subagent #${i} `,
      stored: s.turns,
      replayed: r?.turns ?? [],
      storedFinal: s.finalText !== null,
      replayedFinal: (r?.finalText ?? null) !== null,
    });
  });
  for (const p of parts) {
    const turns = Math.max(p.stored.length, p.replayed.length);
    for (let t = 0; t < turns; t++) {
      const a = p.stored[t]?.calls ?? [];
      const b = p.replayed[t]?.calls ?? [];
      for (let i = 0; i < Math.max(a.length, b.length); i++) {
        const d = compareCall(p.who, t, i, a[i], b[i], missing, reported);
        if (d) out.push(d);
      }
    }
    if (p.stored.length !== p.replayed.length || p.storedFinal !== p.replayedFinal) {
      const at = Math.min(p.stored.length, p.replayed.length);
      out.push({
        kind: 'turns',
        turn: at,
        stored: { turns: p.stored.length, finalReply: p.storedFinal },
        replayed: { turns: p.replayed.length, finalReply: p.replayedFinal },
        message: `${p.who}the replay ${p.replayed.length < p.stored.length || (!p.replayedFinal && p.storedFinal) ? 'ended before' : 'went past'} the recorded turns: ${p.stored.length} turn(s)${p.storedFinal ? ' and a final reply' : ''} stored, ${p.replayed.length}${p.replayedFinal ? ' and a final reply' : ''} replayed`,
      });
    }
  }
  const before = stored.report?.status ?? null;
  const after = outcome.replayed.report?.status ?? null;
  if (before !== after)
    out.push({
      kind: 'report',
      turn: stored.turns.length,
      stored: stored.report ?? null,
      replayed: outcome.replayed.report ?? null,
      message: `the goal report is ${after ?? 'absent'} in the replay, ${before ?? 'absent'} as stored`,
    });
  return out;
}

function outcomeOf(c: RecordedCall): JsonValue {
  return { status: c.status, ...(c.error ? { code: c.error.code } : {}) };
}

function compareCall(
  who: string,
  turn: number,
  callIndex: number,
  a: RecordedCall | undefined,
  b: RecordedCall | undefined,
  missing: ReadonlySet<string>,
  reported: Set<string>,
): ReplayDivergence | undefined {
  const at = `${who}turn ${turn} call ${callIndex}`;
  if (a && missing.has(a.capability)) {
    if (reported.has(a.capability)) return undefined;
    reported.add(a.capability);
    return {
      kind: 'capability_missing',
      turn,
      callIndex,
      capabilityId: a.capability,
      stored: outcomeOf(a),
      replayed: b ? outcomeOf(b) : null,
      message: `${at}: ${a.capability} is no longer registered in the current runtime`,
    };
  }
  if (!a || !b) {
    const c = (a ?? b)!;
    return {
      kind: 'tool_call',
      turn,
      callIndex,
      capabilityId: c.capability,
      stored: a ? { capability: a.capability, input: a.input, ...(outcomeOf(a) as object) } : null,
      replayed: b ? { capability: b.capability, input: b.input, ...(outcomeOf(b) as object) } : null,
      message: a ? `${at}: ${a.capability} was not called in the replay` : `${at}: ${b!.capability} is an extra call`,
    };
  }
  if (a.capability !== b.capability || canonicalJson(a.input) !== canonicalJson(b.input))
    return {
      kind: 'tool_call',
      turn,
      callIndex,
      capabilityId: a.capability,
      stored: { capability: a.capability, input: a.input },
      replayed: { capability: b.capability, input: b.input },
      message: `${at}: the replay called ${b.capability} with another ${a.capability === b.capability ? 'input' : 'capability'} than ${a.capability}`,
    };
  const refusedA = REFUSED.has(a.status);
  const refusedB = REFUSED.has(b.status);
  if (refusedA !== refusedB || (refusedA && (a.status !== b.status || a.error?.code !== b.error?.code)))
    return {
      kind: 'verdict',
      turn,
      callIndex,
      capabilityId: a.capability,
      stored: outcomeOf(a),
      replayed: outcomeOf(b),
      message: `${at}: ${a.capability} was ${verdictText(a)} as stored, ${verdictText(b)} in the replay`,
    };
  // An unknown outcome keeps its status; its code may name the cause (a deadline) the replay cannot repeat.
  if (a.status !== b.status || (a.status === 'failed' && a.error?.code !== b.error?.code))
    return {
      kind: 'tool_call',
      turn,
      callIndex,
      capabilityId: a.capability,
      stored: outcomeOf(a),
      replayed: outcomeOf(b),
      message: `${at}: ${a.capability} ended ${a.status}${a.error ? ` (${a.error.code})` : ''} as stored, ${b.status}${b.error ? ` (${b.error.code})` : ''} in the replay`,
    };
  return undefined;
}

function verdictText(c: RecordedCall): string {
  return REFUSED.has(c.status) ? `${c.status} (${c.error?.code ?? 'no code'})` : 'allowed';
}
