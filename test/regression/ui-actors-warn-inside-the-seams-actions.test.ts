import { afterEach, describe, expect, it, vi } from 'vitest'
import { createActor, setup } from 'xstate'
import { createUserQuestions } from '../../src/protocol/index.js'
import type { UserQuestionProvider } from '../../src/protocol/index.js'
import { createRelay } from '../../src/providers/web/index.js'
import { settle } from '../support/settle.js'

/**
 * XState's development build warns "Custom actions should not call `assign()`
 * directly" when an actor is created while another actor's action runs (its
 * flag for that is global, statelyai/xstate#5343). The seam called the provider
 * inside its presentation's action, so every UI that starts a machine of its
 * own per ask (the relay, any UI built on XState) printed that warning for
 * every ask shown, in every development build and test run of its users. The
 * provider now runs on a turn of its own.
 */

const questions = [{ id: 'go', question: 'Deploy now?', options: [{ label: 'Yes' }] }]
const answer = { answers: [{ id: 'go', selected: ['Yes'] }] }

/** A UI that keeps one small statechart of its own per ask, started when the ask is shown. */
const perAsk = setup({ types: { input: {} as { askId: string } } }).createMachine({
  context: ({ input }) => ({ askId: input.askId }),
})

function xstateWarnings() {
  const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined)
  return () => warn.mock.calls.filter(([message]) => String(message).includes('should not call'))
}

afterEach(() => {
  vi.restoreAllMocks()
})

describe('a UI that starts an XState actor when shown an ask', () => {
  it('hears no warning from XState, and answers', async () => {
    const warnings = xstateWarnings()
    const seam = createUserQuestions()
    const provider: UserQuestionProvider = {
      async ask(request) {
        createActor(perAsk, { input: { askId: request.askId } }).start()
        return answer
      },
    }
    seam.registerProvider(provider)
    await expect(seam.ask({ questions })).resolves.toEqual(answer)
    expect(warnings()).toEqual([])
    await seam.close()
  })

  it('the relay: hears no warning from XState for the asks it relays', async () => {
    const warnings = xstateWarnings()
    const seam = createUserQuestions()
    const relay = createRelay(seam)
    const asked = seam.ask({ questions })
    asked.catch(() => undefined)
    await vi.waitFor(() => expect(relay.pending()).toHaveLength(1))
    await settle()
    expect(warnings()).toEqual([])
    relay.dispose()
    await seam.close()
  })
})
