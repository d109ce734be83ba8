// `after` / `before` of a session search: ISO dates or datetimes, or relative `Nh` / `Nd` / `Nw`.

const RELATIVE = /^(\d{1,6})([hdw])$/;
const UNIT_MS = { h: 3_600_000, d: 86_400_000, w: 604_800_000 } as const;
const ISO = /^\d{4}-\d{2}-\d{2}(?:[T ][\d:.]+(?:Z|[+-]\d{2}:?\d{2})?)?$/;

/**
 * Parses a time bound to epoch milliseconds: an ISO date (`2026-11-30`, UTC midnight) or datetime,
 * or a relative `Nh` / `Nd` / `Nw` counted back from `now`.
 * @param value - the bound as given
 * @param now - the current time, epoch ms
 * @returns epoch ms, or undefined when the text is not a valid bound
 */
export function parseTimeBound(value: string, now: number): number | undefined {
  const text = value.trim();
  const rel = RELATIVE.exec(text);
  if (rel) return now - Number(rel[1]) * UNIT_MS[rel[2] as keyof typeof UNIT_MS];
  if (!ISO.test(text)) return undefined;
  const ms = Date.parse(/^\d{4}-\d{2}-\d{2}$/.test(text) ? `${text}T00:00:00Z` : text);
  return Number.isFinite(ms) ? ms : undefined;
}
