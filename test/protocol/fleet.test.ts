/**
 * The fleet's round of unwritten endings on a real store: each written only
 * where its ask is still pending, a row that cannot be written given up,
 * and the round stopped at the first write that fails otherwise.
 */
import { expect, it } from 'vitest'
import { writeEndings } from '../../src/protocol/fleet.js'
import { createMemoryStore } from '../../src/protocol/index.js'
import { CorruptRowError } from '../../src/protocol/internal.js'
import type { AskStore } from '../../src/protocol/internal.js'
import { callerAbortOutcome, storeFailedOutcome } from '../../src/vocabulary/index.js'

const questions = [{ id: 'db', question: 'Which database?', options: [{ label: 'SQLite' }] }]
const ending = (askId: string) => ({ askId, outcome: storeFailedOutcome() })

async function storeWith(...askIds: string[]): Promise<AskStore> {
  const store = createMemoryStore()
  for (const askId of askIds) {
    await store.admit({ askId, questions, startedAt: Date.now(), ownerSeamId: 'seam-1' })
  }
  return store
}

/** `store`, whose settlement of `askId` throws `error`. */
function failingFor(store: AskStore, askId: string, error: Error): AskStore {
  const failing = Object.create(store) as AskStore
  failing.settle = (id, outcome, at) =>
    id === askId ? Promise.reject(error) : store.settle(id, outcome, at)
  return failing
}

it('writes each ending where its ask is pending, and is done with an ask settled or not held', async () => {
  const store = await storeWith('pending', 'settled')
  await store.settle('settled', callerAbortOutcome(), Date.now())
  const done = await writeEndings(store, [ending('pending'), ending('settled'), ending('gone')])
  expect(done).toEqual(['pending', 'settled', 'gone'])
  expect((await store.get('pending'))?.outcome).toEqual(storeFailedOutcome())
  expect((await store.get('settled'))?.outcome).toEqual(callerAbortOutcome())
})

it('stops at the first write that fails: it and the rest wait for the next round', async () => {
  const store = await storeWith('a', 'b', 'c')
  const failing = failingFor(store, 'b', new Error('the store is locked'))
  expect(await writeEndings(failing, [ending('a'), ending('b'), ending('c')])).toEqual(['a'])
  expect((await store.get('c'))?.state).toBe('pending')
})

it('gives up on a row that does not parse, and goes on with the rest', async () => {
  const store = await storeWith('a', 'b')
  const failing = failingFor(store, 'a', new CorruptRowError('outcome is not an object'))
  expect(await writeEndings(failing, [ending('a'), ending('b')])).toEqual(['a', 'b'])
  expect((await store.get('b'))?.outcome).toEqual(storeFailedOutcome())
})
