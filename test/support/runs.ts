/**
 * How many runs a property test makes: `wanted`, or fewer when PROPERTY_RUNS
 * caps it (the mutation run does, so that each of its many test runs stays short).
 */
export function runs(wanted: number): number {
  const cap = Number(process.env.PROPERTY_RUNS)
  return Number.isFinite(cap) && cap > 0 ? Math.min(wanted, cap) : wanted
}
