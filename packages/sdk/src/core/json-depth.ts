// How deep a JSON value nests, measured without recursion (a value nested 20 000 levels must not overflow the stack
// of whoever measures it).

/**
 * True when `value` nests objects or arrays more than `max` levels deep (a scalar is depth 0, `{}` and `[]` depth 1).
 * Iterative: safe for any depth. Cycles are not followed twice.
 * @public
 */
export function nestsDeeperThan(value: unknown, max: number): boolean {
  const stack: Array<[unknown, number]> = [[value, 0]];
  const seen = new Set<object>();
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (node === null || typeof node !== 'object' || seen.has(node)) continue;
    if (depth + 1 > max) return true;
    seen.add(node);
    for (const child of Array.isArray(node) ? node : Object.values(node)) stack.push([child, depth + 1]);
  }
  return false;
}
