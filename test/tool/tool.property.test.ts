import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { createUserQuestions, validateRequest } from '../../src/protocol/index.js'
import type { UserQuestionError } from '../../src/protocol/index.js'
import { createAskUserQuestionTool, parseAskUserQuestionArgs } from '../../src/tool/index.js'
import { displayedForm } from '../../src/vocabulary/validate.js'

const textArb = fc.oneof(
  fc.string({ maxLength: 10 }),
  fc.constantFrom('', ' ', '\u00a0', '\ufeff', '\u2028', '\t\n', 'Yes (Recommended)'),
)
const filledArb = textArb.filter((text) => text.trim() !== '')

const optionArb = fc.record(
  { label: filledArb, description: fc.string({ maxLength: 20 }) },
  { requiredKeys: ['label'] },
)

/** Valid snake_case arguments, as a well-behaved model would send them. */
const validArgsArb = fc
  .uniqueArray(
    fc.record(
      {
        id: filledArb,
        question: filledArb,
        header: fc.string({ maxLength: 10 }),
        detail: fc.string({ maxLength: 30 }),
        // Unique as displayed: the seam refuses two labels that display the same.
        options: fc.uniqueArray(optionArb, {
          maxLength: 4,
          selector: (option) => displayedForm(option.label),
        }),
        multi_select: fc.boolean(),
        plan: fc.boolean(),
      },
      { requiredKeys: ['id', 'question'] },
    ),
    { minLength: 1, maxLength: 5, selector: (question) => question.id },
  )
  .map((questions) =>
    questions.map(({ plan, ...question }) => {
      const approve = question.options?.[0]?.label
      const canReview = approve !== undefined && question.detail?.trim()
      return plan === true && canReview
        ? { ...question, intent: { kind: 'plan-review' as const, approve } }
        : question
    }),
  )
  .map((questions) => ({ questions }))

function camelCase(args: { questions: Record<string, unknown>[] }) {
  return {
    questions: args.questions.map(({ multi_select, ...rest }) =>
      multi_select === undefined ? rest : { ...rest, multiSelect: multi_select },
    ),
  }
}

/** Like valid arguments, but with one field possibly replaced by something odd. */
const mutatedArgsArb = fc
  .tuple(
    validArgsArb,
    fc.nat(),
    fc.constantFrom('id', 'question', 'header', 'detail', 'options', 'multi_select', 'label'),
    fc.oneof(textArb, fc.integer(), fc.boolean(), fc.constant(null), fc.constant([])),
  )
  .map(([args, at, field, value]) => {
    const questions = args.questions.map((question) => ({ ...question })) as Record<
      string,
      unknown
    >[]
    const question = questions[at % questions.length] as Record<string, unknown>
    if (field === 'label') {
      const options = (question.options as Record<string, unknown>[] | undefined) ?? []
      if (options.length > 0) {
        question.options = options.map((option, index) =>
          index === at % options.length ? { ...option, label: value } : option,
        )
      }
    } else {
      question[field] = value
    }
    return { questions }
  })

function seamVerdict(request: unknown): string {
  try {
    validateRequest(request)
    return 'ok'
  } catch (error: unknown) {
    return (error as UserQuestionError).code
  }
}

describe('ask_user_question arguments', () => {
  it('valid snake_case arguments parse into a request the seam accepts unchanged', () => {
    fc.assert(
      fc.property(validArgsArb, (args) => {
        const parsed = parseAskUserQuestionArgs(args)
        if (!parsed.ok) throw parsed.error
        const validated = validateRequest({ questions: parsed.questions })
        expect(validated.questions).toEqual(parsed.questions)
        expect(parsed.questions).toEqual(camelCase(args).questions)
      }),
      { numRuns: 500 },
    )
  })

  it('the tool accepts exactly what the seam accepts, and names the field it rejects', () => {
    fc.assert(
      fc.property(mutatedArgsArb, (args) => {
        const parsed = parseAskUserQuestionArgs(args)
        const seam = seamVerdict(camelCase(args))
        if (parsed.ok) {
          // The parse checks shape; the intent rules stay with the seam, which runs next.
          expect(['ok', 'BAD_INTENT']).toContain(seam)
        } else {
          expect(parsed.error.code).toBe(seam === 'ok' ? 'never' : seam)
          expect(parsed.error.message).toMatch(
            /^questions(\[\d+\](\.[a-z_]+(\[\d+\]\.label)?)?)?: /,
          )
        }
      }),
      { numRuns: 1_000 },
    )
  })

  it('execute resolves with a string for any input, never rejects', async () => {
    const seam = createUserQuestions()
    seam.registerProvider({
      ask: async ({ questions }) => ({
        answers: questions.map(({ id }) => ({ id, selected: [] })),
      }),
    })
    const tool = createAskUserQuestionTool(seam)
    await fc.assert(
      fc.asyncProperty(fc.oneof(fc.anything(), mutatedArgsArb, validArgsArb), async (args) => {
        const result = await tool.execute(args)
        expect(typeof result).toBe('string')
        if (result.startsWith('{')) {
          expect(JSON.parse(result)).toHaveProperty('answers')
        } else {
          expect(result).toMatch(/^[A-Z_]+: \S/)
        }
      }),
      { numRuns: 300 },
    )
    await seam.close()
  })
})
