/**
 * Deep equality of plain data, as DESIGN §10 reads "the same questions": key
 * order does not matter, and a property whose value is `undefined` counts as
 * absent (an omitted optional field).
 */
export function sameData(a: unknown, b: unknown): boolean {
  if (a === b) return true
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false
  if (Array.isArray(a) !== Array.isArray(b)) return false
  if (Array.isArray(a)) {
    const other = b as unknown[]
    return a.length === other.length && a.every((item, index) => sameData(item, other[index]))
  }
  const left = definedKeys(a as Record<string, unknown>)
  const right = definedKeys(b as Record<string, unknown>)
  if (left.length !== right.length) return false
  return left.every(
    (key) =>
      Object.hasOwn(b, key) &&
      sameData((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key]),
  )
}

function definedKeys(value: Record<string, unknown>): string[] {
  return Object.keys(value).filter((key) => value[key] !== undefined)
}
