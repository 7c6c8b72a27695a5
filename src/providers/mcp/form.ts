import type {
  ElicitRequestFormParams,
  PrimitiveSchemaDefinition,
} from '@modelcontextprotocol/sdk/types.js'
import { describePlanReview } from '../../protocol/index.js'
import type { AskUserQuestionItem, AskUserQuestionOption } from '../../protocol/index.js'
import type { ApprovalCount } from '../../vocabulary/index.js'
import { PropertyNames, isPlainPropertyName } from './keys.js'

/**
 * Which shape of elicitation schema the client understands.
 *
 * - `titled` (protocol 2025-11-25 and later): a single-select is a string with
 *   `oneOf: [{ const, title }]`, a multi-select an array whose items are
 *   `anyOf: [{ const, title }]`.
 * - `legacy` (protocol 2025-06-18): a single-select is a string with `enum` +
 *   `enumNames`; that protocol has no arrays, so a multi-select becomes one
 *   boolean property per option.
 */
export type ElicitationDialect = 'titled' | 'legacy'

/** How one question sits in the form. */
export interface QuestionField {
  question: AskUserQuestionItem
  kind: 'single' | 'multi' | 'text'
  /** The choice (single, titled multi) or the typed text (optionless). Absent for a legacy multi. */
  key?: string
  /** Legacy multi-select: one boolean property per option, in the question's option order. */
  optionKeys?: string[]
  /** The optional typed answer beside the options. */
  customKey?: string
}

/** One elicitation/create request's content, and the table that maps its properties back. */
export interface ElicitationForm {
  params: ElicitRequestFormParams
  fields: QuestionField[]
  dialect: ElicitationDialect
}

/** The dialect for a negotiated protocol version; an unknown one gets the form every version accepts. */
export function dialectFor(protocolVersion: string | undefined): ElicitationDialect {
  // Version strings are dates, so they order as strings.
  return protocolVersion !== undefined && protocolVersion >= '2025-11-25' ? 'titled' : 'legacy'
}

function questionTitle(question: AskUserQuestionItem): string {
  return question.header === undefined || question.header.trim() === ''
    ? question.question
    : `${question.header}: ${question.question}`
}

function shortName(question: AskUserQuestionItem): string {
  return question.header === undefined || question.header.trim() === ''
    ? question.question
    : question.header
}

function optionTitle(option: AskUserQuestionOption): string {
  return option.description === undefined || option.description.trim() === ''
    ? option.label
    : `${option.label} — ${option.description}`
}

/** The options in the order shown: a declared approving option first. */
function shownOptions(question: AskUserQuestionItem): AskUserQuestionOption[] {
  const options = question.options ?? []
  const approve = question.intent?.approve
  const first = options.find((option) => option.label === approve)
  return first === undefined ? options : [first, ...options.filter((option) => option !== first)]
}

function indent(text: string): string {
  return text
    .split('\n')
    .map((line) => (line === '' ? '' : `   ${line}`))
    .join('\n')
}

function optionLines(question: AskUserQuestionItem): string[] {
  return shownOptions(question).map((option) => `   - ${optionTitle(option)}`)
}

function questionBlock(question: AskUserQuestionItem, index: number): string {
  const header =
    question.header === undefined || question.header.trim() === '' ? '' : `[${question.header}] `
  const lines = [`${index + 1}. ${header}${question.question}`]
  if (question.detail !== undefined && question.detail.trim() !== '') {
    lines.push(indent(question.detail))
  }
  const options = question.options ?? []
  if (options.length === 0) {
    lines.push('   Type your answer.')
  } else {
    lines.push(...optionLines(question))
    lines.push(
      question.multiSelect === true
        ? '   Choose any of these, and add your own answer if you like.'
        : '   Choose one, or type your own answer instead.',
    )
  }
  return lines.join('\n')
}

/**
 * The message body: everything a client that shows only the message needs to
 * understand the questions. A lone plan review is the plan itself, then the
 * question and its options, approving option first.
 */
export function elicitationMessage(questions: readonly AskUserQuestionItem[]): string {
  const review = describePlanReview(questions)
  if (review !== undefined) {
    const { question } = review
    return [
      question.detail ?? '',
      '',
      questionTitle(question),
      ...optionLines(question),
      '   Or type what you would change instead.',
    ].join('\n')
  }
  const intro =
    questions.length === 1
      ? 'The agent has a question for you. Leave it empty to skip it.'
      : `The agent has ${questions.length} questions for you. Leave any of them empty to skip it.`
  return [intro, '', questions.map(questionBlock).join('\n\n')].join('\n')
}

function withDescription<T extends object>(schema: T, description: string | undefined): T {
  return description === undefined || description.trim() === ''
    ? schema
    : { ...schema, description }
}

/** "1 of 2 approvals so far: alice": the first line of the message of an ask that needs several approvals. */
export function approvalsSoFar(count: ApprovalCount): string {
  const names = count.given.map((responder) => responder.name ?? responder.id)
  const tally = `${count.given.length} of ${count.required} approvals so far`
  return names.length === 0 ? tally : `${tally}: ${names.join(', ')}`
}

/** The description of a question's main property: its detail, unless the message already is the plan. */
function fieldDescription(
  question: AskUserQuestionItem,
  isLoneReview: boolean,
): string | undefined {
  return isLoneReview ? undefined : question.detail
}

/**
 * Builds the form-mode `elicitation/create` parameters for a batch: one
 * property per question in question order (a legacy multi-select takes one
 * boolean per option), each question with options followed by its optional
 * typed-answer property. Nothing is `required`: a question left out is a skip.
 */
export function buildElicitationForm(
  questions: readonly AskUserQuestionItem[],
  dialect: ElicitationDialect,
): ElicitationForm {
  const names = new PropertyNames()
  // Plain ids are claimed first so a generated key never takes a name a later question owns.
  const baseKeys = questions.map((question) =>
    isPlainPropertyName(question.id) ? names.claim(question.id) : undefined,
  )
  const keys = baseKeys.map((key, index) => key ?? names.claim(`q${index + 1}`))
  const isLoneReview = describePlanReview(questions) !== undefined
  const properties: Record<string, PrimitiveSchemaDefinition> = {}
  const fields = questions.map((question, index): QuestionField => {
    const key = keys[index] as string
    const options = shownOptions(question)
    const title = questionTitle(question)
    const description = fieldDescription(question, isLoneReview)
    if (options.length === 0) {
      properties[key] = withDescription({ type: 'string', title }, description)
      return { question, kind: 'text', key }
    }
    const field: QuestionField = {
      question,
      kind: question.multiSelect === true ? 'multi' : 'single',
    }
    if (field.kind === 'single') {
      properties[key] = withDescription(
        dialect === 'titled'
          ? {
              type: 'string',
              title,
              oneOf: options.map((option) => ({ const: option.label, title: optionTitle(option) })),
            }
          : {
              type: 'string',
              title,
              enum: options.map((option) => option.label),
              enumNames: options.map(optionTitle),
            },
        description,
      )
      field.key = key
    } else if (dialect === 'titled') {
      properties[key] = withDescription(
        {
          type: 'array',
          title,
          items: {
            anyOf: options.map((option) => ({ const: option.label, title: optionTitle(option) })),
          },
        },
        description,
      )
      field.key = key
    } else {
      // The option order of the question, so the answer can be read back by position.
      field.optionKeys = (question.options ?? []).map((option, optionIndex) => {
        const optionKey = names.claim(`${key}_${optionIndex + 1}`)
        properties[optionKey] = withDescription(
          { type: 'boolean', title: `${shortName(question)}: ${option.label}` },
          optionIndex === 0 && description !== undefined
            ? [description, option.description].filter(Boolean).join('\n')
            : option.description,
        )
        return optionKey
      })
    }
    const customKey = names.claim(`${key}_other`)
    properties[customKey] = {
      type: 'string',
      title: `${shortName(question)}: your own answer`,
      description:
        field.kind === 'single'
          ? 'Optional. When filled in, it replaces the choice above.'
          : 'Optional. Added beside the choices above.',
    }
    field.customKey = customKey
    return field
  })
  const params: ElicitRequestFormParams = {
    message: elicitationMessage(questions),
    requestedSchema: { type: 'object', properties },
  }
  // `mode` arrived with protocol 2025-11-25; older clients expect a form without it.
  if (dialect === 'titled') params.mode = 'form'
  return { params, fields, dialect }
}
