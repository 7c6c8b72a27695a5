import { UserQuestionError } from '../../protocol/index.js'
import type { AnswerDraft } from '../../protocol/index.js'
import type { ElicitationForm, QuestionField } from './form.js'

type Role =
  | { field: QuestionField; role: 'choice' | 'custom' | 'text' }
  | { field: QuestionField; role: 'option'; label: string }

function badAnswer(message: string, rule: string, details: Record<string, unknown> = {}) {
  return new UserQuestionError(
    `The MCP client's answer does not fit the form: ${message}. The client must send only the form's properties, with values of the declared types.`,
    'BAD_ANSWER',
    { details: { ...details, rule } },
  )
}

/** At most this much of a client's text goes into a message. */
function quoted(text: string): string {
  return text.length > 80 ? `${text.slice(0, 80)}…` : text
}

function rolesOf(form: ElicitationForm): Map<string, Role> {
  const roles = new Map<string, Role>()
  for (const field of form.fields) {
    if (field.key !== undefined) {
      roles.set(field.key, { field, role: field.kind === 'text' ? 'text' : 'choice' })
    }
    if (field.customKey !== undefined) roles.set(field.customKey, { field, role: 'custom' })
    field.optionKeys?.forEach((key, index) => {
      const label = field.question.options?.[index]?.label as string
      roles.set(key, { field, role: 'option', label })
    })
  }
  return roles
}

function labelsOf(field: QuestionField): string[] {
  return (field.question.options ?? []).map((option) => option.label)
}

/** An elicitation result as read by {@link readElicitResult}. */
export interface ElicitOutcome {
  action: 'accept' | 'decline' | 'cancel'
  content?: unknown
}

/**
 * Reads the raw result of `elicitation/create`, as the client sent it, or
 * throws `BAD_ANSWER`: the SDK is handed only the loose result envelope, so
 * that a value that does not fit the form is reported here, naming its
 * question, instead of as the SDK's schema dump. A `null` content (some
 * clients send it with decline or cancel) counts as none.
 */
export function readElicitResult(raw: unknown): ElicitOutcome {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw badAnswer('the result must be an object', 'result-shape')
  }
  const { action, content } = raw as { action?: unknown; content?: unknown }
  if (action !== 'accept' && action !== 'decline' && action !== 'cancel') {
    throw badAnswer('action must be "accept", "decline" or "cancel"', 'unknown-action')
  }
  return content === undefined || content === null ? { action } : { action, content }
}

/**
 * `BAD_ANSWER` for an `inputResponses` entry that is no elicitation result at
 * all (`"yes"`, `null`, `42`, a list, a `{ method, result }` wrapper): the MCP
 * SDK v2 hands the server only its key, in `droppedInputResponseKeys`.
 */
export function unreadableResponse(): UserQuestionError {
  return badAnswer(
    'each inputResponses value must be the elicitation result object itself ({ action, content }), not another value nor one wrapped in { method, result }',
    'result-shape',
  )
}

/**
 * Reads accepted form content back into one draft per question, or throws
 * `BAD_ANSWER` naming the question, the property and the rule: an unknown
 * property, a value of the wrong type, a label the question does not offer, a
 * label chosen twice. A question whose properties are absent or `null` is a
 * skip (the Python SDK sends `None` as `null` for a cleared field), as is an
 * empty string for an untouched single choice; blank typed text is no answer.
 */
export function decodeContent(form: ElicitationForm, content: unknown): AnswerDraft[] {
  if (content === undefined) return []
  if (typeof content !== 'object' || content === null || Array.isArray(content)) {
    throw badAnswer('content must be an object of form values', 'content-shape')
  }
  const roles = rolesOf(form)
  const drafts = new Map<string, { selected: string[]; custom?: string }>()
  const draftFor = (field: QuestionField) => {
    let draft = drafts.get(field.question.id)
    if (draft === undefined) {
      draft = { selected: [] }
      drafts.set(field.question.id, draft)
    }
    return draft
  }
  for (const [property, value] of Object.entries(content)) {
    const role = roles.get(property)
    if (role === undefined) {
      throw badAnswer(`"${quoted(property)}" is not a property of the form`, 'unknown-property', {
        property,
      })
    }
    // A cleared field: nothing said for this property.
    if (value === null) continue
    if (role.role === 'choice' && role.field.kind === 'single' && value === '') continue
    const { field } = role
    const at = { questionId: field.question.id, property }
    const where = `"${quoted(property)}" (question "${quoted(field.question.id)}")`
    switch (role.role) {
      case 'text':
      case 'custom': {
        if (typeof value !== 'string') throw badAnswer(`${where} must be text`, 'not-text', at)
        if (value.trim() !== '') draftFor(field).custom = value
        break
      }
      case 'option': {
        if (typeof value !== 'boolean') {
          throw badAnswer(`${where} must be true or false`, 'not-boolean', at)
        }
        if (value) draftFor(field).selected.push(role.label)
        break
      }
      case 'choice': {
        const offered = labelsOf(field)
        const chosen =
          field.kind === 'single'
            ? typeof value === 'string'
              ? [value]
              : undefined
            : Array.isArray(value) && value.every((item) => typeof item === 'string')
              ? (value as string[])
              : undefined
        if (chosen === undefined) {
          throw badAnswer(
            `${where} must be ${field.kind === 'single' ? 'one option label' : 'a list of option labels'}`,
            'not-a-choice',
            at,
          )
        }
        const seen = new Set<string>()
        for (const label of chosen) {
          if (!offered.includes(label)) {
            throw badAnswer(
              `${where}: "${quoted(label)}" is not one of its options`,
              'unknown-label',
              {
                ...at,
                label,
              },
            )
          }
          if (seen.has(label)) {
            throw badAnswer(`${where}: "${label}" is chosen twice`, 'repeated-label', {
              ...at,
              label,
            })
          }
          seen.add(label)
        }
        draftFor(field).selected.push(...chosen)
        break
      }
    }
  }
  return [...drafts.entries()].map(([id, draft]) =>
    draft.custom === undefined
      ? { id, selected: draft.selected }
      : { id, selected: draft.selected, custom: draft.custom },
  )
}
