import type { ProviderSchemaProblem } from './types';

/**
 * The problems without repeats of the same rule at the same path (first kept).
 * @param problems - problems in the order found
 * @returns a new list
 * @internal
 */
export function dedupeProblems(problems: readonly ProviderSchemaProblem[]): ProviderSchemaProblem[] {
  const seen = new Set<string>();
  return problems.filter((p) => {
    const key = `${p.rule}\u0000${p.path}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
