import { describe, expect, it } from 'vitest'
import type { UserQuestionError } from '../../src/protocol/index.js'
import { MAX_TIMEOUT_MS, createUserQuestions } from '../../src/protocol/index.js'

describe('§4 createUserQuestions options', () => {
  it.each([
    ['timeoutMs', -1],
    ['timeoutMs', Number.NaN],
    ['timeoutMs', MAX_TIMEOUT_MS + 1],
    ['timeoutMs', '5'],
    // Not a number, and one that cannot even be compared as one.
    ['timeoutMs', Symbol('5')],
    ['waitForProviderMs', Infinity],
    ['waitForProviderMs', -5],
    ['providerGraceMs', Infinity],
    ['providerGraceMs', MAX_TIMEOUT_MS + 1],
  ])('refuses %s: %s with a TypeError naming it', (name, value) => {
    expect(() => createUserQuestions({ [name]: value })).toThrow(
      new RegExp(`createUserQuestions: ${name}`),
    )
    expect(() => createUserQuestions({ [name]: value })).toThrow(TypeError)
  })

  it.each([
    ['timeoutMs', Infinity],
    ['timeoutMs', 0],
    ['timeoutMs', MAX_TIMEOUT_MS],
    ['waitForProviderMs', MAX_TIMEOUT_MS],
    ['providerGraceMs', 0],
  ])('accepts %s: %s', (name, value) => {
    expect(() => createUserQuestions({ [name]: value })).not.toThrow()
  })

  it('says "or Infinity" only for the deadline', () => {
    expect(messageOf(() => createUserQuestions({ timeoutMs: -1 }))).toBe(
      `createUserQuestions: timeoutMs must be a number of milliseconds from 0 to ${MAX_TIMEOUT_MS} or Infinity`,
    )
    expect(messageOf(() => createUserQuestions({ providerGraceMs: -1 }))).toBe(
      `createUserQuestions: providerGraceMs must be a number of milliseconds from 0 to ${MAX_TIMEOUT_MS}`,
    )
  })
})

/** The message of what `run` throws; fails the test when it throws nothing. */
function messageOf(run: () => unknown): string {
  try {
    run()
  } catch (error: unknown) {
    return (error as Error).message
  }
  throw new Error('expected a throw')
}

describe('§3 checks: an ask whose signal is already aborted', () => {
  it('rejects ASK_ABORTED with the reason as cause, before anything else is checked', async () => {
    const seam = createUserQuestions()
    const controller = new AbortController()
    controller.abort('the run was cancelled')
    const error = (await seam
      .ask({ questions: [], signal: controller.signal })
      .catch((e: unknown) => e)) as UserQuestionError
    expect(error.code).toBe('ASK_ABORTED')
    expect(error.cause).toBe('the run was cancelled')
    expect(error.details).toStrictEqual({ reason: 'caller-aborted' })
  })
})
