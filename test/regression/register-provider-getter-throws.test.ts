import { describe, expect, it } from 'vitest'
import { createUserQuestions } from '../../src/protocol/index.js'
import type { UserQuestionProvider } from '../../src/protocol/index.js'

/** Issue 10, item 8: registerProvider({ get ask() { throw } }) threw a raw error. */
describe('registerProvider with a provider whose ask cannot be read', () => {
  it('throws the documented TypeError, with the getter’s error as cause, and the slot stays free', () => {
    const seam = createUserQuestions()
    const failure = new Error('no ask for you')
    const hostile = {
      get ask(): never {
        throw failure
      },
    } as unknown as UserQuestionProvider
    let thrown: unknown
    try {
      seam.registerProvider(hostile)
    } catch (error: unknown) {
      thrown = error
    }
    expect(thrown).toBeInstanceOf(TypeError)
    expect((thrown as TypeError).message).toBe(
      'registerProvider: the provider’s ask could not be read',
    )
    expect((thrown as TypeError).cause).toBe(failure)
    expect(() => seam.registerProvider({ ask: () => new Promise(() => {}) })).not.toThrow()
  })
})
