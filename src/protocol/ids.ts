/**
 * A new random id (a UUID) as one flat string. V8 builds `randomUUID()`'s
 * result as a rope of some twenty pieces, about 480 bytes that every holder of
 * the id (the ask's entry, its machine, its store record) keeps alive; the
 * flat copy is 56.
 */
export function newId(): string {
  return JSON.parse(`"${globalThis.crypto.randomUUID()}"`) as string
}
