import { describe, expect, it } from 'vitest'
import { UserQuestionError, createUserQuestions } from '../../src/protocol/index.js'
import { createControllableProvider } from '../support/controllable-provider.js'

/** Issue 10, item 2: a signal-like object whose methods or getters throw. */

const questions = [{ id: 'q', question: 'Go?', options: [{ label: 'Yes' }, { label: 'No' }] }]
const answer = { answers: [{ id: 'q', selected: ['Yes'] }] }

function signalWith(
  overrides: Partial<Record<'add' | 'remove' | 'aborted' | 'reason', () => never>>,
) {
  const { signal } = new AbortController()
  const add = signal.addEventListener.bind(signal)
  const remove = signal.removeEventListener.bind(signal)
  return Object.create(signal, {
    aborted: { get: overrides.aborted ?? (() => false) },
    reason: { get: overrides.reason ?? (() => undefined) },
    addEventListener: { value: overrides.add ?? add },
    removeEventListener: { value: overrides.remove ?? remove },
  }) as AbortSignal
}
const boom = (): never => {
  throw new Error('hostile signal')
}

describe('a caller signal whose listener methods throw', () => {
  it('addEventListener throws: ask() rejects INVALID_REQUEST (field signal) instead of throwing, and nothing is left pending', async () => {
    const seam = createUserQuestions()
    const provider = createControllableProvider()
    seam.registerProvider(provider)
    let asked: Promise<unknown> | undefined
    expect(() => {
      asked = seam.ask({ questions, signal: signalWith({ add: boom }) })
    }).not.toThrow()
    const error = (await asked!.catch((e: unknown) => e)) as UserQuestionError
    expect(error).toBeInstanceOf(UserQuestionError)
    expect(error.code).toBe('INVALID_REQUEST')
    expect(error.details).toMatchObject({ field: 'signal' })
    expect(seam.pending()).toEqual([])
    expect(provider.calls).toHaveLength(0)
  })

  it('removeEventListener throws: the answer still reaches the caller and pending() is empty', async () => {
    const seam = createUserQuestions()
    const provider = createControllableProvider()
    seam.registerProvider(provider)
    const asked = seam.ask({ questions, signal: signalWith({ remove: boom }) })
    ;(await provider.call(0)).resolve(answer)
    await expect(asked).resolves.toEqual(answer)
    expect(seam.pending()).toEqual([])
  })

  it('an aborted getter that throws: a coded rejection, never a raw one', async () => {
    const seam = createUserQuestions()
    seam.registerProvider(createControllableProvider())
    const error = await seam
      .ask({ questions, signal: signalWith({ aborted: boom }) })
      .catch((e: unknown) => e)
    expect(error).toBeInstanceOf(UserQuestionError)
    expect(seam.pending()).toEqual([])
  })

  it('a reason getter that throws on abort still ends the ask ASK_ABORTED', async () => {
    const seam = createUserQuestions()
    seam.registerProvider(createControllableProvider())
    const controller = new AbortController()
    const signal = controller.signal
    Object.defineProperty(signal, 'reason', { get: boom })
    const asked = seam.ask({ questions, signal })
    controller.abort()
    await expect(asked).rejects.toMatchObject({ code: 'ASK_ABORTED' })
    expect(seam.pending()).toEqual([])
  })
})
