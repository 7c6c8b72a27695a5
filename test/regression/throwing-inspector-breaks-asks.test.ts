import { afterEach, describe, expect, it, vi } from 'vitest'
import { createUserQuestions } from '../../src/protocol/index.js'
import type { InspectionObserver } from '../../src/protocol/index.js'

/**
 * An inspection observer that threw (a dev tool's bug) broke the seam: XState
 * calls it inside sends and transitions, so `registerProvider` threw and an
 * ask was rejected as an unreadable request. The seam now guards the observer:
 * asks go on, and the throw reaches the process on a turn of its own.
 */

const questions = [{ id: 'go', question: 'Deploy now?', options: [{ label: 'Yes' }] }]
const answer = { answers: [{ id: 'go', selected: ['Yes'] }] }

/** Runs queued microtasks as usual, keeping what they throw instead of letting it reach vitest. */
function catchMicrotaskThrows() {
  const thrown: unknown[] = []
  const queue = globalThis.queueMicrotask.bind(globalThis)
  vi.spyOn(globalThis, 'queueMicrotask').mockImplementation((callback) =>
    queue(() => {
      try {
        callback()
      } catch (error: unknown) {
        thrown.push(error)
      }
    }),
  )
  return thrown
}

afterEach(() => {
  vi.restoreAllMocks()
})

describe('an inspection observer that throws', () => {
  const broke = new Error('inspector broke')
  it.each<[string, InspectionObserver]>([
    [
      'a function',
      () => {
        throw broke
      },
    ],
    [
      'an observer object',
      {
        next: () => {
          throw broke
        },
      },
    ],
  ])(
    'as %s: the provider registers, the ask is answered, the throws reach the process',
    async (_, inspect) => {
      const thrown = catchMicrotaskThrows()
      const seam = createUserQuestions({ inspect })
      expect(() => seam.registerProvider({ ask: async () => answer })).not.toThrow()
      await expect(seam.ask({ questions })).resolves.toEqual(answer)
      expect(seam.pending()).toEqual([])
      await seam.close()
      expect(thrown.length).toBeGreaterThan(0)
      expect(thrown.every((error) => error === broke)).toBe(true)
    },
  )

  it('an observer object with no next is read as one that listens to nothing', async () => {
    const thrown = catchMicrotaskThrows()
    const seam = createUserQuestions({ inspect: { complete: () => undefined } })
    seam.registerProvider({ ask: async () => answer })
    await expect(seam.ask({ questions })).resolves.toEqual(answer)
    await seam.close()
    expect(thrown).toEqual([])
  })
})
