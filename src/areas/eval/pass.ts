// Whether a result counts as passed: a person's annotation, when there is one, counts instead of the scorer.
export function effectivePass(row: { passed: number; annotation: string | null }): boolean {
  return row.annotation === null ? row.passed === 1 : row.annotation === 'pass';
}
