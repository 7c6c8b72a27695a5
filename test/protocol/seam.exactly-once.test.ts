import { describe, expect, it, vi } from 'vitest'
import { UserQuestionError, createUserQuestions } from '../../src/protocol/index.js'
import type { AskUserQuestionAnswer, UserQuestions } from '../../src/protocol/index.js'
import { createControllableProvider, skipAll, track } from '../support/controllable-provider.js'
import { settle } from '../support/settle.js'
import { START, abortListeners, batch, useFakeClock } from './seam-fixtures.js'

/** DESIGN §4: every ask settles exactly once, whatever the order of its endings. */

useFakeClock()

/** Every way a presented ask can end, or try to. */
type Step = 'answer' | 'cancel' | 'abort' | 'deadline' | 'dispose' | 'close'
const STEPS: readonly Step[] = ['answer', 'cancel', 'abort', 'deadline', 'dispose', 'close']

function permutations<T>(items: readonly T[]): T[][] {
  if (items.length <= 1) return [[...items]]
  return items.flatMap((item, index) =>
    permutations([...items.slice(0, index), ...items.slice(index + 1)]).map((rest) => [
      item,
      ...rest,
    ]),
  )
}

/** What the caller sees when `step` is the first to end the ask. */
function expectOutcome(
  step: Step,
  tracked: ReturnType<typeof track<AskUserQuestionAnswer>>,
  abortReason: unknown,
): void {
  const settlement = tracked.settlement
  if (step === 'answer') {
    expect(settlement).toEqual({ status: 'fulfilled', value: skipAll(batch()) })
    return
  }
  expect(settlement.status).toBe('rejected')
  const error = (settlement as { reason: unknown }).reason as UserQuestionError
  expect(error).toBeInstanceOf(UserQuestionError)
  const code = {
    cancel: 'ASK_CANCELLED',
    abort: 'ASK_ABORTED',
    deadline: 'ASK_TIMEOUT',
    dispose: 'ASK_ABORTED',
    close: 'SEAM_CLOSED',
  }[step]
  expect(error.code).toBe(code)
  if (step === 'abort') expect(error.cause).toBe(abortReason)
  if (step === 'dispose') expect(error.details).toMatchObject({ reason: 'provider-disposed' })
}

async function runOrder(order: readonly Step[], providerGraceMs: number): Promise<void> {
  vi.setSystemTime(START)
  const seam: UserQuestions = createUserQuestions({ timeoutMs: 1_000, providerGraceMs })
  const provider = createControllableProvider()
  const dispose = seam.registerProvider(provider)
  const controller = new AbortController()
  const abortReason = new Error('caller gave up')
  const asking = track(seam.ask({ questions: batch(), signal: controller.signal }))
  const call = await provider.call(0)
  let first: Step | undefined
  let disposedFirst = false
  for (const step of order) {
    if (step === 'answer') call.resolve(skipAll(batch()))
    if (step === 'cancel') call.reject(new UserQuestionError('dismissed', 'ASK_CANCELLED'))
    if (step === 'abort') controller.abort(abortReason)
    if (step === 'deadline') await vi.advanceTimersByTimeAsync(1_000)
    if (step === 'dispose') dispose()
    if (step === 'close') await seam.close()
    await settle()
    // With a grace, disposal hands the ask over; what the old provider does afterwards is moot.
    if (providerGraceMs > 0 && step === 'dispose' && first === undefined) disposedFirst = true
    const effective =
      !(disposedFirst && (step === 'answer' || step === 'cancel')) &&
      !(providerGraceMs > 0 && step === 'dispose')
    if (first === undefined && effective) {
      first = step
      expect(asking.count, `after ${order.join(' → ')}`).toBe(1)
      expectOutcome(step, asking, abortReason)
    }
  }
  const settled = asking.settlement
  expect(first).toBeDefined()
  expect(asking.count).toBe(1)
  expectOutcome(first as Step, asking, abortReason)
  expect(asking.settlement).toBe(settled)
  expect(seam.pending()).toEqual([])
  expect(abortListeners(controller.signal)).toBe(0)
  expect(vi.getTimerCount()).toBe(0)
  const providerSettledFirst = !disposedFirst && (first === 'answer' || first === 'cancel')
  expect(call.request.signal.aborted).toBe(!providerSettledFirst)
  if (!providerSettledFirst && !disposedFirst) {
    expect(call.request.signal.reason).toBe((settled as { reason: unknown }).reason)
  }
}

describe('§4 every ask settles exactly once', () => {
  const orders = permutations(STEPS)

  it(`whatever the order of answer, cancel, abort, deadline, disposal and close (${orders.length} orders, no grace)`, async () => {
    for (const order of orders) await runOrder(order, 0)
  })

  it(`whatever the order, when disposal hands the ask over within a grace (${orders.length} orders)`, async () => {
    for (const order of orders) await runOrder(order, 5_000)
  })
})
