/**
 * Two processes asked under one key: the second attached to the first's ask
 * (it follows it through the store). The first's caller gave up, so the
 * first ended the ask `ASK_ABORTED` (`caller-aborted`), and the second
 * caller, which never gave up, was told that abort as if it were its own.
 * DESIGN §10: a caller's abort ends the ask only when no other caller is
 * attached, and an outcome that says nothing about the human is not
 * replayed to a key. Now the follower asks anew under its key, as the ask it
 * minted: the question comes back, and its caller gets the human's answer.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { UserQuestionError, createUserQuestions } from '../../src/protocol/index.js'
import type { AskStore, UserQuestions } from '../../src/protocol/index.js'
import { createSqliteStore } from '../../src/stores/sqlite/index.js'
import { createControllableProvider } from '../support/controllable-provider.js'
import { tempDirectory } from '../stores/sqlite/temp-file.js'

const questions = [{ id: 'go', question: 'Go?', options: [{ label: 'Yes' }, { label: 'No' }] }]
const yes = { answers: [{ id: 'go', selected: ['Yes'] }] }

const cleanups: Array<() => unknown> = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

/** A seam on its own connection to the file, as another process would have. */
function seamOn(path: string, options: { timeoutMs?: number } = {}): UserQuestions {
  const store: AskStore = createSqliteStore({ path, pollIntervalMs: 10 })
  const seam = createUserQuestions({ store, ...options })
  cleanups.push(() => store.close())
  cleanups.push(() => seam.close())
  return seam
}

/**
 * A console showing the asks, an owner whose caller asks first under `key`,
 * and a follower whose caller then asks under it too: each a seam of its
 * own on one file. Resolves once the follower follows the owner's ask.
 */
async function attachedUnder(key: string, ownerSignal?: AbortSignal) {
  const temp = tempDirectory()
  cleanups.push(temp.remove)
  const path = temp.file()
  const provider = createControllableProvider()
  seamOn(path).registerProvider(provider)
  const owner = seamOn(path)
  const follower = seamOn(path, { timeoutMs: 60_000 })
  const first = owner.ask({ key, questions, ...(ownerSignal && { signal: ownerSignal }) })
  first.catch(() => undefined)
  const shown = await provider.call(0)
  const attached = follower.ask({ key, questions })
  attached.catch(() => undefined)
  await expect
    .poll(() => follower.pending().map(({ askId }) => askId))
    .toContain(shown.request.askId)
  return { provider, owner, first, shown, attached }
}

describe('regression: a caller’s abort in one process ended the ask of a caller attached in another', () => {
  it('the attached caller asks anew under the key, and the human’s answer reaches it', async () => {
    const gaveUp = new AbortController()
    const { provider, owner, first, shown, attached } = await attachedUnder('deploy', gaveUp.signal)

    gaveUp.abort(new Error('the user pressed stop'))
    await expect(first).rejects.toMatchObject({
      code: 'ASK_ABORTED',
      details: { reason: 'caller-aborted' },
    })
    // The question comes back, as the follower's own ask, with its own deadline.
    const again = await provider.call(1)
    expect(again.request.askId).not.toBe(shown.request.askId)
    expect(again.request.deadline).toBeGreaterThan(Date.now() + 50_000)
    again.resolve(yes)
    await expect(attached).resolves.toEqual(yes)
    // The key now holds the answer, replayed to the next call.
    await expect(owner.ask({ key: 'deploy', questions })).resolves.toEqual(yes)
  })

  it('an ending the human decided is still every attached caller’s', async () => {
    const { provider, shown, attached } = await attachedUnder('plan')
    shown.reject(new UserQuestionError('dismissed', 'ASK_CANCELLED'))
    await expect(attached).rejects.toMatchObject({ code: 'ASK_CANCELLED' })
    expect(provider.calls).toHaveLength(1)
  })
})
