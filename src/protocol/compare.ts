import type { StoredOutcome } from './store.js'

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

/** Whether the store committed the very outcome a seam offered (it may hold another's). */
export function sameOutcome(committed: StoredOutcome, offered: StoredOutcome): boolean {
  if (committed.status !== offered.status) return false
  if (committed.status === 'answered') {
    return sameData(committed.answer, (offered as typeof committed).answer)
  }
  const offeredError = (offered as typeof committed).error
  return (
    committed.error.code === offeredError.code &&
    committed.error.message === offeredError.message &&
    sameData(committed.error.details, offeredError.details)
  )
}
