import type { z as Zod } from 'zod'
import { UserQuestionError, validateRequest } from '../protocol/index.js'
import type { AskUserQuestionItem } from '../protocol/index.js'
import { zod } from './zod.js'

const { z } = zod

// `\S` and `String.prototype.trim` agree on what whitespace is, so this is
// exactly the seam's "non-blank" rule, and it survives into the JSON Schema.
const filled = (what: string) =>
  z.string().min(1, `${what} must not be empty`).regex(/\S/, `${what} must not be blank`)

const optionSchema = z.strictObject({
  label: filled('label').describe(
    'What the user sees and what comes back in `selected`. Unique within the question.',
  ),
  description: z.string().optional().describe('One line on what choosing it means.'),
})

const intentSchema = z.strictObject({
  kind: z.literal('plan-review'),
  approve: z
    .string()
    .describe('The label of the option that approves the plan (by label, never by position).'),
})

const questionSchema = z.strictObject({
  id: filled('id').describe('A stable id, unique in the batch; the answer carries it back.'),
  question: filled('question').describe('The question, as one clear sentence.'),
  header: z.string().optional().describe('A short heading, e.g. "Database".'),
  detail: z
    .string()
    .optional()
    .describe('Context shown with the question (for a plan review: the plan). Never an option.'),
  options: z
    .array(optionSchema)
    .optional()
    .describe(
      'The choices, best first; put "(Recommended)" in the label of the one you prefer. Omit for a free-text question. The user can always type their own answer.',
    ),
  multi_select: z.boolean().optional().describe('Allow several options. Default false.'),
  intent: intentSchema
    .optional()
    .describe(
      'Set { kind: "plan-review", approve: "<label>" } when the question asks the user to approve a plan given in `detail`.',
    ),
})

/** The tool's arguments, parsed with zod; also the source of its JSON Schema. */
export const askUserQuestionArgsSchema = z
  .strictObject({
    questions: z
      .array(questionSchema)
      .min(1, 'questions must hold at least one question')
      .describe('The questions, asked together in one batch.'),
  })
  .superRefine((args, context) => {
    const ids = new Set<string>()
    args.questions.forEach((question, index) => {
      if (ids.has(question.id)) {
        context.addIssue({
          code: 'custom',
          path: ['questions', index, 'id'],
          message: `id "${question.id}" is used by another question`,
        })
      }
      ids.add(question.id)
      const labels = new Set<string>()
      question.options?.forEach((option, optionIndex) => {
        if (labels.has(option.label)) {
          context.addIssue({
            code: 'custom',
            path: ['questions', index, 'options', optionIndex, 'label'],
            message: `the label "${option.label}" is offered twice in this question`,
          })
        }
        labels.add(option.label)
      })
    })
  })

/** The snake_case arguments the model sends. */
export type AskUserQuestionArgs = Zod.input<typeof askUserQuestionArgsSchema>

/** `questions[0].options[1].label`: a zod path as the model wrote the field. */
export function formatFieldPath(path: readonly PropertyKey[]): string {
  let text = ''
  for (const key of path) {
    if (typeof key === 'number') text += `[${key}]`
    else text += text === '' ? String(key) : `.${String(key)}`
  }
  return text === '' ? 'arguments' : text
}

function toItem(question: Zod.output<typeof questionSchema>): AskUserQuestionItem {
  const item: AskUserQuestionItem = { id: question.id, question: question.question }
  if (question.header !== undefined) item.header = question.header
  if (question.detail !== undefined) item.detail = question.detail
  if (question.options !== undefined) {
    item.options = question.options.map((option) =>
      option.description === undefined
        ? { label: option.label }
        : { label: option.label, description: option.description },
    )
  }
  if (question.multi_select !== undefined) item.multiSelect = question.multi_select
  if (question.intent !== undefined) item.intent = { ...question.intent }
  return item
}

/** Whether `args` carries an empty `questions` array (checked before anything but abort). */
export function hasEmptyQuestions(args: unknown): boolean {
  return (
    typeof args === 'object' &&
    args !== null &&
    Array.isArray((args as { questions?: unknown }).questions) &&
    (args as { questions: unknown[] }).questions.length === 0
  )
}

/**
 * Parses the model's snake_case arguments into the seam's questions, or
 * returns the `UserQuestionError` that names the first bad field:
 * `EMPTY_QUESTIONS`, `BAD_INTENT` for an unknown intent kind (as the seam
 * reports it), otherwise `INVALID_REQUEST`.
 */
export function parseAskUserQuestionArgs(
  args: unknown,
): { ok: true; questions: AskUserQuestionItem[] } | { ok: false; error: UserQuestionError } {
  if (hasEmptyQuestions(args)) {
    return {
      ok: false,
      error: new UserQuestionError(
        'questions is empty: ask at least one question',
        'EMPTY_QUESTIONS',
        {
          details: { field: 'questions' },
        },
      ),
    }
  }
  const parsed = askUserQuestionArgsSchema.safeParse(args)
  if (parsed.success) {
    const questions = parsed.data.questions.map(toItem)
    const refused = seamShapeRefusal(questions)
    return refused === undefined ? { ok: true, questions } : { ok: false, error: refused }
  }
  const problems = parsed.error.issues.flatMap(describeIssue)
  const [first] = problems
  if (first === undefined) {
    return {
      ok: false,
      error: new UserQuestionError('the arguments are invalid', 'INVALID_REQUEST'),
    }
  }
  const shown = problems.slice(0, maxProblemsShown).map(({ text }) => text)
  if (problems.length > maxProblemsShown) {
    shown.push(`and ${problems.length - maxProblemsShown} more`)
  }
  const { path, field } = first
  const isIntentKind = path.length === 4 && path[2] === 'intent' && path[3] === 'kind'
  const code = isIntentKind && first.code === 'invalid_value' ? 'BAD_INTENT' : 'INVALID_REQUEST'
  const questionIndex = typeof path[1] === 'number' ? path[1] : undefined
  return {
    ok: false,
    error: new UserQuestionError(shown.join('; '), code, {
      details: questionIndex === undefined ? { field } : { field, questionIndex },
    }),
  }
}

/**
 * The seam's own shape rules that a JSON Schema cannot state (labels that
 * display the same, bidirectional controls in labels and ids), so the tool
 * names the field exactly as the seam would refuse it. The intent rules stay
 * with the seam, which reports them in DESIGN §3 order.
 */
function seamShapeRefusal(questions: AskUserQuestionItem[]): UserQuestionError | undefined {
  try {
    validateRequest({ questions })
    return undefined
  } catch (error: unknown) {
    const refusal = error as UserQuestionError
    if (refusal.code !== 'INVALID_REQUEST') return undefined
    const field = typeof refusal.details?.field === 'string' ? refusal.details.field : 'questions'
    const questionIndex = /^questions\[(\d+)\]/.exec(field)?.[1]
    const message = refusal.message.startsWith(field)
      ? refusal.message.slice(field.length).replace(/^[\s.:]+/, '')
      : refusal.message
    return new UserQuestionError(`${field}: ${message}`, 'INVALID_REQUEST', {
      details:
        questionIndex === undefined
          ? { field, ...rule(refusal) }
          : { field, questionIndex: Number(questionIndex), ...rule(refusal) },
    })
  }
}

function rule(error: UserQuestionError): { rule?: string } {
  return typeof error.details?.rule === 'string' ? { rule: error.details.rule } : {}
}

/** How many problems one error lists; the rest are counted. */
const maxProblemsShown = 5

const knownMistakes: Readonly<Record<string, string>> = {
  multiSelect: 'multi_select',
  multiselect: 'multi_select',
  choices: 'options',
  text: 'question',
}

interface Problem {
  path: PropertyKey[]
  field: string
  code: string
  text: string
}

function describeIssue(issue: Zod.core.$ZodIssue): Problem[] {
  if (issue.code === 'unrecognized_keys') {
    return issue.keys.map((key) => {
      const path = [...issue.path, key]
      const field = formatFieldPath(path)
      const hint = Object.hasOwn(knownMistakes, key) ? ` (did you mean ${knownMistakes[key]}?)` : ''
      return { path, field, code: issue.code, text: `${field}: is not a known field${hint}` }
    })
  }
  const field = formatFieldPath(issue.path)
  return [{ path: issue.path, field, code: issue.code, text: `${field}: ${issue.message}` }]
}

/** The JSON Schema of the arguments, produced from the zod schema. */
export function askUserQuestionInputSchema(): Record<string, unknown> {
  return z.toJSONSchema(askUserQuestionArgsSchema, { io: 'input' }) as Record<string, unknown>
}
