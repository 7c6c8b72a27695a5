import { describe, expect, it } from 'vitest'
import { UserQuestionError, createMemoryStore } from '../../src/protocol/index.js'
import { settle } from '../support/settle.js'
import {
  answer,
  durableMemoryStore,
  outcomeOf,
  presentingOn,
  questions,
  seamOn,
  useStoreSeams,
} from './seam-store-fixtures.js'

/** DESIGN §10 on the memory store: keys resume, attach and replay. */

useStoreSeams()

describe('§10 keys', () => {
  it('a second ask with the key attaches: same askId, presented once, both callers answered', async () => {
    const { seam, provider } = presentingOn(createMemoryStore())
    const first = seam.ask({ questions, key: 'k1' })
    const second = seam.ask({ questions, key: 'k1' })
    await settle()
    expect(provider.calls).toHaveLength(1)
    expect(seam.pending()).toHaveLength(1)
    provider.last().resolve(answer)
    await expect(first).resolves.toEqual(answer)
    await expect(second).resolves.toEqual(answer)
  })

  it('a seam that follows another seam’s ask and answers it hears its own commit at once, not through the store’s feed', async () => {
    const store = createMemoryStore()
    const holder = seamOn(store, { waitForProviderMs: 60_000 })
    const held = outcomeOf(holder.ask({ questions, key: 'followed' }))
    await settle()
    const { seam, provider } = presentingOn({
      ...store,
      // A feed that never brings a settlement: only the seam's own commit can tell its caller.
      watch: (listener) =>
        store.watch((change) => {
          if (change.type !== 'ask.settled') listener(change)
        }),
    })
    const followed = outcomeOf(seam.ask({ questions, key: 'followed' }))
    const shown = await provider.call(0)
    shown.resolve(answer)
    await settle()
    expect(followed.value).toEqual(answer)
    expect(held.value).toEqual(answer)
  })

  it('on a durable store, a keyed ask with no provider anywhere waits for a human: not NO_PROVIDER, answered by the first UI to come', async () => {
    const store = durableMemoryStore()
    const worker = seamOn(store)
    const asked = outcomeOf(worker.ask({ questions, key: 'for-a-human' }))
    await settle()
    expect(asked.settled).toBe(false)
    expect(worker.pending().map(({ state }) => state)).toEqual(['waiting-for-provider'])
    const { provider } = presentingOn(store)
    await settle()
    provider.last().resolve(answer)
    await settle()
    expect(asked.value).toEqual(answer)
  })

  it('a settled key returns its answer at once, even with no provider anywhere', async () => {
    const store = createMemoryStore()
    const seam = seamOn(store)
    const dispose = seam.registerProvider({ ask: async () => answer })
    await expect(seam.ask({ questions, key: 'k2' })).resolves.toEqual(answer)
    dispose()
    const later = seamOn(store)
    await expect(later.ask({ questions, key: 'k2' })).resolves.toEqual(answer)
  })

  it('replays a stored rejection with the same code, message and details', async () => {
    const store = createMemoryStore()
    const seam = seamOn(store)
    seam.registerProvider({
      ask: () =>
        Promise.reject(
          new UserQuestionError('dismissed by the user', 'ASK_CANCELLED', {
            details: { by: 'ui' },
          }),
        ),
    })
    const first = await seam.ask({ questions, key: 'k3' }).catch((error: unknown) => error)
    const again = await seamOn(store)
      .ask({ questions, key: 'k3' })
      .catch((error: unknown) => error)
    expect(again).toBeInstanceOf(UserQuestionError)
    for (const field of ['code', 'message', 'details'] as const) {
      expect((again as UserQuestionError)[field]).toEqual((first as UserQuestionError)[field])
    }
  })

  it('a caller’s own abort is not replayed: the next ask with the key is a new ask', async () => {
    const { seam, provider } = presentingOn(createMemoryStore())
    const controller = new AbortController()
    const first = seam.ask({ questions, key: 'k4', signal: controller.signal })
    await settle()
    const firstId = provider.last().request.askId
    controller.abort('changed my mind')
    await expect(first).rejects.toMatchObject({ code: 'ASK_ABORTED' })
    const second = seam.ask({ questions, key: 'k4' })
    await settle()
    expect(provider.last().request.askId).not.toBe(firstId)
    provider.last().resolve(answer)
    await expect(second).resolves.toEqual(answer)
  })

  it('the same key with other questions is INVALID_REQUEST on field key; key order and omitted fields do not matter', async () => {
    const { seam } = presentingOn(createMemoryStore())
    void seam.ask({ questions, key: 'k5' }).catch(() => undefined)
    await settle()
    const reordered = [
      {
        options: [{ label: 'Postgres' }, { label: 'SQLite', description: undefined }],
        question: 'Which database?',
        id: 'db',
        multiSelect: undefined,
      },
    ]
    const attached = outcomeOf(seam.ask({ questions: reordered as never, key: 'k5' }))
    const other = seam.ask({ questions: [{ id: 'db', question: 'Which cache?' }], key: 'k5' })
    await expect(other).rejects.toMatchObject({
      code: 'INVALID_REQUEST',
      details: { field: 'key' },
    })
    await settle()
    expect(attached.settled).toBe(false)
    expect(seam.pending()).toHaveLength(1)
  })

  it('the same key with other answerers is INVALID_REQUEST on field key, in this seam and through the store; their order does not matter', async () => {
    const store = createMemoryStore()
    const { seam, provider } = presentingOn(store)
    const first = outcomeOf(seam.ask({ questions, key: 'k6', answerers: ['ann', 'role:ops'] }))
    await settle()
    const policy = { field: 'key', askId: seam.pending()[0]?.askId, differs: 'policy' }
    await expect(seam.ask({ questions, key: 'k6', answerers: ['bob'] })).rejects.toMatchObject({
      code: 'INVALID_REQUEST',
      message: 'this key belongs to an ask with other answerers or approvals',
      details: policy,
    })
    // Another seam sharing the store finds the key's ask in the store, not in its own actors.
    const other = seamOn(store)
    await expect(other.ask({ questions, key: 'k6' })).rejects.toMatchObject({
      code: 'INVALID_REQUEST',
      details: policy,
    })
    const attached = seam.ask({ questions, key: 'k6', answerers: ['role:ops', 'ann'] })
    await settle()
    expect(provider.calls).toHaveLength(1)
    provider.last().resolve({ ...answer, by: { id: 'ann', via: 'web' } })
    await expect(attached).resolves.toEqual(answer)
    expect(first.settled).toBe(true)
    // Settled, the key still stands for the same ask: other answerers are refused, not replayed.
    await expect(other.ask({ questions, key: 'k6', answerers: ['bob'] })).rejects.toMatchObject({
      code: 'INVALID_REQUEST',
      details: policy,
    })
    await expect(
      other.ask({ questions, key: 'k6', answerers: ['ann', 'role:ops'] }),
    ).resolves.toEqual(answer)
  })
})
