import { describe, expect, it } from 'vitest'
import { deploymentQuestions } from '../../../src/cli/scenario.js'
import { UserQuestionError } from '../../../src/protocol/index.js'
import { decodeContent } from '../../../src/providers/mcp/decode.js'
import { buildElicitationForm } from '../../../src/providers/mcp/form.js'

describe('decodeContent', () => {
  const form = buildElicitationForm(deploymentQuestions, 'titled')

  it.each(['__proto__', 'constructor', 'toString', 'hasOwnProperty'])(
    'rejects an own property named %s that a plain object inherits',
    (name) => {
      const content = JSON.parse(`{"${name}": "x"}`) as unknown
      expect(() => decodeContent(form, content)).toThrowError(
        expect.objectContaining({
          code: 'BAD_ANSWER',
          details: { property: name, rule: 'unknown-property' },
        }),
      )
    },
  )

  it.each([null, 'text', 3, ['region']])('rejects content %j that is not an object', (content) => {
    expect(() => decodeContent(form, content)).toThrowError(UserQuestionError)
  })

  it('reads no content as no drafts', () => {
    expect(decodeContent(form, undefined)).toEqual([])
  })
})
