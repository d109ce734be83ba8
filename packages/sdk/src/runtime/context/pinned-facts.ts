// Facts that survive every compaction verbatim, and how they are rendered.

/**
 * Facts the driver supplies that must survive every compaction verbatim: the run's checklist,
 * unresolved `unknown` writes and pending approvals (docs/architecture.md#compaction). Rendered as JSON in the summary
 * message, never passed through the summarizer and never truncated.
 * @public
 */
export interface PinnedFacts {
  /** The user's request (the run goal). */
  goal?: string;
  /** The run's current checklist (`update_plan` input), when there is one. */
  checklist?: unknown;
  /** Side-effecting calls whose outcome is still `unknown` (e.g. ledger entries: capability, call id, input summary). */
  unknownWrites?: readonly unknown[];
  /** Approvals the run asked for that no one has decided yet. */
  pendingApprovals?: readonly unknown[];
  /** Other facts the host wants kept, as short texts. */
  notes?: readonly string[];
}

/**
 * Renders the pinned facts as the verbatim block of the summary message.
 * @param pinned - the facts
 * @returns the block (empty string when there are none)
 * @public
 */
export function renderPinnedFacts(pinned: PinnedFacts | undefined): string {
  if (!pinned) return '';
  const parts: string[] = [];
  if (pinned.goal) parts.push(`### Goal\n${pinned.goal}`);
  if (pinned.checklist !== undefined && pinned.checklist !== null)
    parts.push(`### Current plan\n${JSON.stringify(pinned.checklist)}`);
  if (pinned.unknownWrites?.length)
    parts.push(
      `### Writes whose outcome is still unknown (verify with a read before retrying; never assume success or failure)\n${pinned.unknownWrites.map((w) => `- ${JSON.stringify(w)}`).join('\n')}`,
    );
  if (pinned.pendingApprovals?.length)
    parts.push(
      `### Approvals still pending (wait for the decision)\n${pinned.pendingApprovals.map((a) => `- ${JSON.stringify(a)}`).join('\n')}`,
    );
  if (pinned.notes?.length) parts.push(`### Notes\n${pinned.notes.map((n) => `- ${n}`).join('\n')}`);
  return parts.length ? `## Pinned facts (verbatim, still current)\n${parts.join('\n')}` : '';
}
