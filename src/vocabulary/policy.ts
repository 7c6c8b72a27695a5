import { UserQuestionError } from './errors.js'
import { AskEndReasons } from './outcome.js'
import type { AskErrorData } from './outcome.js'
import { isPlanReviewAsk } from './intent.js'
import { isFilled, isStorableId } from './read.js'
import type { AskPolicy, AskUserQuestionAnswer, AskUserQuestionItem, Responder } from './types.js'

/*
 * The one home of who may answer (DESIGN §12): what a request's `answerers`
 * and `approvals` may say, what a provider's `by` must look like, whom a
 * policy admits, and which answer counts as an approval.
 */

/** The most approvals one ask may require. */
export const MAX_APPROVALS = 100
/** The most entries of `answerers`. */
export const MAX_ANSWERERS = 1_000
/** The longest responder id, name, role or `via`, and the longest `answerers` entry. */
export const MAX_RESPONDER_FIELD_LENGTH = 256
/** The most roles one responder may hold. */
export const MAX_RESPONDER_ROLES = 64

const ROLE_PREFIX = 'role:'

function invalid(message: string, field: string): UserQuestionError {
  return new UserQuestionError(message, 'INVALID_REQUEST', { details: { field } })
}

/** A responder's id, name, role or `via`, as to its length and content: filled, and not too long. */
export function isResponderText(text: unknown): text is string {
  return isFilled(text) && text.length <= MAX_RESPONDER_FIELD_LENGTH
}

/** A responder id an ask may name or an answer bring: {@link isResponderText}, and one every store counts votes by as given. */
export function isResponderId(text: unknown): text is string {
  return isResponderText(text) && isStorableId(text)
}

/**
 * Reads a request's `answerers` and `approvals` (already read from the
 * request, once each) against its validated questions; throws
 * `INVALID_REQUEST` naming the field. `approvals: 1` is the default and is
 * left out of the policy.
 */
export function readPolicy(
  answerers: unknown,
  approvals: unknown,
  questions: readonly AskUserQuestionItem[],
): AskPolicy | undefined {
  const policy: AskPolicy = {}
  if (answerers !== undefined) {
    if (!Array.isArray(answerers) || answerers.length === 0 || answerers.length > MAX_ANSWERERS) {
      throw invalid(
        `answerers must be a list of 1 to ${MAX_ANSWERERS} responder ids or "role:NAME"`,
        'answerers',
      )
    }
    const copied = Array.from(answerers as unknown[], (entry, index) => {
      const named =
        typeof entry === 'string' && entry.startsWith(ROLE_PREFIX)
          ? entry.slice(ROLE_PREFIX.length)
          : entry
      if (!isResponderText(entry) || !isResponderText(named)) {
        throw invalid(
          `answerers[${index}] must be a non-blank responder id or "role:NAME" of at most ${MAX_RESPONDER_FIELD_LENGTH} characters`,
          'answerers',
        )
      }
      if (!isResponderId(entry)) {
        throw invalid(
          `answerers[${index}] must not hold a NUL or an unpaired surrogate: no responder has such an id`,
          'answerers',
        )
      }
      return entry
    })
    policy.answerers = Object.freeze(copied) as string[]
  }
  if (approvals !== undefined) {
    if (
      typeof approvals !== 'number' ||
      !Number.isInteger(approvals) ||
      approvals < 1 ||
      approvals > MAX_APPROVALS
    ) {
      throw invalid(`approvals must be a whole number from 1 to ${MAX_APPROVALS}`, 'approvals')
    }
    if (!isPlanReviewAsk(questions)) {
      throw invalid('approvals applies only to an ask of one plan-review question', 'approvals')
    }
    if (approvals > 1) policy.approvals = approvals
  }
  return policy.answerers === undefined && policy.approvals === undefined ? undefined : policy
}

function badResponder(message: string): UserQuestionError {
  return new UserQuestionError(`by: ${message}`, 'BAD_ANSWER', { details: { field: 'by' } })
}

/**
 * A provider's `by`, checked and copied: `BAD_ANSWER` (`details.field:
 * 'by'`) when it is not a {@link Responder}. `undefined` passes: a provider
 * may name nobody.
 */
export function readResponder(by: unknown): Responder | undefined {
  if (by === undefined) return undefined
  if (typeof by !== 'object' || by === null || Array.isArray(by)) {
    throw badResponder('must be an object { id, name?, roles?, via }')
  }
  const { id, name, roles, via } = by as Record<string, unknown>
  if (!isResponderText(id))
    throw badResponder(
      `id must be a non-blank string of at most ${MAX_RESPONDER_FIELD_LENGTH} characters`,
    )
  if (!isResponderText(via))
    throw badResponder(
      `via must be a non-blank string of at most ${MAX_RESPONDER_FIELD_LENGTH} characters`,
    )
  const responder: Responder = { id, via }
  if (name !== undefined) {
    if (!isResponderText(name))
      throw badResponder(
        `name must be a non-blank string of at most ${MAX_RESPONDER_FIELD_LENGTH} characters`,
      )
    responder.name = name
  }
  if (roles !== undefined) {
    if (
      !Array.isArray(roles) ||
      roles.length > MAX_RESPONDER_ROLES ||
      !roles.every(isResponderText)
    ) {
      throw badResponder(`roles must be a list of at most ${MAX_RESPONDER_ROLES} non-blank strings`)
    }
    responder.roles = [...(roles as string[])]
  }
  return responder
}

/**
 * A provider's `by` as an answer brings it (DESIGN §12): {@link readResponder},
 * and an id every store keeps as given, since a vote is counted by it
 * (`BAD_ANSWER`, `details.field: 'by'`). A stored row is read with
 * {@link readResponder} alone, so what a store already holds stays readable.
 */
export function readAnsweringResponder(by: unknown): Responder | undefined {
  const responder = readResponder(by)
  if (responder !== undefined && !isStorableId(responder.id)) {
    throw badResponder(
      'id must not hold a NUL or an unpaired surrogate: no store keeps one as given',
    )
  }
  return responder
}

/**
 * Whether `answerers` lets `by` answer: anyone when the ask names no
 * answerers; otherwise only a named responder, by id or by one of its roles.
 */
export function admits(
  answerers: readonly string[] | undefined,
  by: Responder | undefined,
): boolean {
  if (answerers === undefined) return true
  if (by === undefined) return false
  return answerers.some((entry) =>
    entry.startsWith(ROLE_PREFIX)
      ? (by.roles ?? []).includes(entry.slice(ROLE_PREFIX.length))
      : entry === by.id,
  )
}

/** Whether `by` is among the responders whose approvals are counted: a second approval of theirs is refused. */
export function hasApproved(
  given: readonly Responder[] | undefined,
  by: Responder | undefined,
): boolean {
  return by !== undefined && given !== undefined && given.some((voter) => voter.id === by.id)
}

/** Whether a canonical answer to a one-question plan review approves it: the approve label alone, nothing typed. */
export function isApproval(
  questions: readonly AskUserQuestionItem[],
  answer: AskUserQuestionAnswer,
): boolean {
  const intent = questions[0]?.intent
  const item = answer.answers[0]
  if (intent === undefined || item === undefined || item.custom !== undefined) return false
  return item.selected.length === 1 && item.selected[0] === intent.approve
}

/** The refusal of an answer from a responder the ask does not admit: the ask stays pending. */
export const forbiddenAnswer = (): AskErrorData => ({
  code: 'BAD_ANSWER',
  message: 'this responder may not answer this ask',
  details: { reason: AskEndReasons.FORBIDDEN },
})

/** The refusal of a second approval by the same responder: the ask stays pending. */
export const alreadyVoted = (): AskErrorData => ({
  code: 'BAD_ANSWER',
  message: 'this responder has approved already',
  details: { reason: AskEndReasons.ALREADY_VOTED },
})
