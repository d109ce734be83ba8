// The rule of open event streams: how many one actor, and the whole host, may hold at once (pure).

/**
 * Which limit refuses one more open stream: `actor` (this actor holds its share), `total` (the host
 * holds its total), or none.
 * @public
 */
export type SlotVerdict = 'ok' | 'actor' | 'total';

/**
 * Whether one more stream may open, given what is open now. The actor's own share is checked first,
 * so a person at their limit is told so even when the host is full too.
 * @param openForActor - streams this actor holds open now
 * @param openTotal - streams open on the host now (every actor)
 * @param limits - `perActor` and `total`, positive integers
 * @public
 */
export function slotVerdict(
  openForActor: number,
  openTotal: number,
  limits: { perActor: number; total: number },
): SlotVerdict {
  if (openForActor >= limits.perActor) return 'actor';
  if (openTotal >= limits.total) return 'total';
  return 'ok';
}
