import { describe, expect, it } from 'vitest'
import { questionnaireAnswer } from '../../../src/machines/index.js'
import type { UserQuestionError } from '../../../src/protocol/index.js'
import { interpretResult } from '../../../src/providers/web/frames.js'

/** The `result` of the `question/respond` the console page sends when a questionnaire is cancelled. */
const pageCancel = (reason: 'dismissed' | 'discuss') => ({
  ok: false,
  error: { code: 'cancelled', reason },
})

function terminalError(reason: 'dismissed' | 'discuss'): UserQuestionError {
  try {
    questionnaireAnswer({ status: 'cancelled', reason })
  } catch (error: unknown) {
    return error as UserQuestionError
  }
  throw new Error('a cancelled questionnaire always throws')
}

describe('a cancel from the console page', () => {
  it.each(['discuss', 'dismissed'] as const)(
    'reaches the seam as the terminal’s %s does: ASK_CANCELLED, same reason, same message',
    (reason) => {
      const result = interpretResult(pageCancel(reason))
      expect(result.kind).toBe('cancel')
      if (result.kind !== 'cancel') return
      expect(result.reason).toBe(reason)
      expect(result.error.toJSON()).toEqual(terminalError(reason).toJSON())
      expect(result.error.details).toEqual({ reason })
    },
  )

  it('without a reason (an older client) is a plain dismissal', () => {
    const result = interpretResult({ ok: false, error: { code: 'cancelled' } })
    expect(result.kind === 'cancel' && result.error.toJSON()).toEqual(
      terminalError('dismissed').toJSON(),
    )
  })
})
