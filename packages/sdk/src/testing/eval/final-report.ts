// The final report an agent ends an evaluated run with, and the pure parser the oracle reads it with.

/**
 * What the agent says it reached, in the words of its final report.
 *
 * - `done`: the goal is complete in the world (the title is in the library);
 * - `submitted`: a download is in the downloader, not yet in the library;
 * - `already_present`: the title was already in the library or being downloaded before the run;
 * - `unresolved`: the agent could not bring it to an end (it says what is still open);
 * - `needs_input`: the agent needs a person's answer before it goes on;
 * - `status`: a status report, no change asked for.
 * @public
 */
export type FinalReportOutcome = 'done' | 'submitted' | 'already_present' | 'unresolved' | 'needs_input' | 'status';

/** Every {@link FinalReportOutcome}. @public */
export const FINAL_REPORT_OUTCOMES: readonly FinalReportOutcome[] = Object.freeze([
  'done',
  'submitted',
  'already_present',
  'unresolved',
  'needs_input',
  'status',
]);

/**
 * The structured claim at the end of an evaluated run's final text: what was reached and the ids it
 * rests on. The oracle checks each claim against the world and the run's events.
 * @public
 */
export interface FinalReport {
  /** What the agent says it reached. */
  outcome: FinalReportOutcome;
  /** The real ids the claim rests on: media entity ids (`tmdb:693134`), download ids (`dl-1`), organize ids. */
  ids: string[];
  /** One or two sentences for people (not judged). */
  summary?: string;
}

/**
 * The instruction appended to every scenario goal in an evaluation: how to end the final reply.
 * @public
 */
export const FINAL_REPORT_INSTRUCTION =
  'End your final reply with a JSON object on its own: {"outcome": "done" | "submitted" | "already_present" | ' +
  '"unresolved" | "needs_input" | "status", "ids": [the real ids you read from tools: media entity ids such as ' +
  '"tmdb:693134", download ids such as "dl-1"], "summary": "one sentence"}. Use "submitted" when a download is ' +
  'accepted but not yet in the library, "unresolved" when it cannot be finished, "needs_input" when you need the ' +
  "user's choice.";

/**
 * Reads the final report from a run's final text: the last fenced ```json block, else the last
 * balanced `{…}` object in the text, that parses to `{ outcome, ids }` with a known outcome and string ids.
 * Pure.
 * @param text - the model's final text (null when the run ended without one)
 * @returns the report, or null when there is none or it is malformed
 * @public
 */
export function parseFinalReport(text: string | null | undefined): FinalReport | null {
  if (!text) return null;
  const candidates: string[] = [];
  for (const m of text.matchAll(/```(?:json)?\s*([\s\S]*?)```/g)) candidates.push(m[1]!);
  candidates.push(...balancedObjects(text));
  for (const c of candidates.reverse()) {
    const report = asReport(c);
    if (report) return report;
  }
  return null;
}

function asReport(text: string): FinalReport | null {
  let value: unknown;
  try {
    value = JSON.parse(text.trim());
  } catch {
    return null;
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) return null;
  const v = value as { outcome?: unknown; ids?: unknown; summary?: unknown };
  if (typeof v.outcome !== 'string' || !FINAL_REPORT_OUTCOMES.includes(v.outcome as FinalReportOutcome)) return null;
  if (!Array.isArray(v.ids) || !v.ids.every((id) => typeof id === 'string')) return null;
  return {
    outcome: v.outcome as FinalReportOutcome,
    ids: v.ids as string[],
    ...(typeof v.summary === 'string' ? { summary: v.summary } : {}),
  };
}

/** Every top-level balanced `{…}` span of the text, in order (braces inside JSON strings are skipped). */
function balancedObjects(text: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let start = -1;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (inString) {
      if (ch === '\\') i++;
      else if (ch === '"') inString = false;
      continue;
    }
    if (ch === '"' && depth > 0) inString = true;
    else if (ch === '{') {
      if (depth === 0) start = i;
      depth++;
    } else if (ch === '}' && depth > 0) {
      depth--;
      if (depth === 0) out.push(text.slice(start, i + 1));
    }
  }
  return out;
}
