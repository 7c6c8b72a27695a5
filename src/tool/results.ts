import type { UserQuestionError, UserQuestionErrorCode } from '../protocol/index.js'
import { AskEndReasons, durationInWords } from '../vocabulary/index.js'

/**
 * For each code, one sentence telling the model what to do next. Written for
 * the model, not for a developer; it never restates what happened (that is
 * the error's message, or a sentence of {@link happenedSentences}).
 */
export const nextStepByCode: Readonly<Record<UserQuestionErrorCode, string>> = {
  ASK_ABORTED:
    'The question was withdrawn before anyone answered (the call was aborted or the user interface went away): do not assume an answer, and stop until the user speaks.',
  EMPTY_QUESTIONS: 'Call ask_user_question again with at least one question.',
  INVALID_REQUEST: 'Fix that field and call ask_user_question again.',
  CALLER_NOT_LIVE:
    'This agent session may not ask the user: do not retry, continue with what you know and state the open question in your reply.',
  DELEGATED_CALLER:
    'You are a subagent and no human is reachable from here: do not retry, and put the unresolved question in your final result so the agent that delegated to you can ask it.',
  BAD_INTENT:
    "For a plan review put the plan in `detail` and set intent.approve to the exact label of one of that question's options, then call again.",
  NO_PROVIDER:
    'No user interface is connected to answer questions: do not retry now; go on with a safe default and say which assumption you made, or stop and ask in your reply.',
  DUPLICATE_PROVIDER:
    'The host is misconfigured (two user interfaces competed): do not retry, and report the question in your reply.',
  ASK_CANCELLED:
    'They would rather talk than answer: stop, do not ask again, and wait for their message.',
  ASK_TIMEOUT:
    'Do not assume an answer; continue only with work that does not depend on it, or stop and state the open question.',
  BAD_ANSWER:
    'The user interface returned an answer that does not fit the questions: you may ask once more, otherwise continue without it and say so.',
  PROVIDER_FAILED:
    'The user interface failed while asking: you may retry once, otherwise continue without the answer and say so.',
  SEAM_CLOSED:
    'The session is shutting down: do not retry; finish up and state the open question in your reply.',
  STORE_FAILED:
    'The host could not record the question: you may retry once, otherwise continue without the answer and say so.',
}

/** The plan-review variant of a cancellation: the user wants to discuss the plan first. */
export const discussNextStep =
  'Do not carry the plan out: stop and wait for their message about what to change.'

function waited(details: Readonly<Record<string, unknown>> | undefined): number | undefined {
  const deadline = details?.deadline
  const startedAt = details?.startedAt
  if (typeof deadline !== 'number' || typeof startedAt !== 'number') return undefined
  return deadline >= startedAt ? deadline - startedAt : undefined
}

/**
 * What happened, in the words the model reads, for the outcomes every UI
 * reaches the same way (a dismissal, a "discuss", a deadline): the sentence
 * comes from the code and `details`, never from the UI's own message, so a
 * web "Discuss" and a terminal "Discuss" read the same. `undefined`: the
 * error's message says it (it names the field, the rule, the package…).
 */
export function happenedSentence(error: UserQuestionError): string | undefined {
  const reason = error.details?.reason
  if (error.code === 'ASK_CANCELLED') {
    if (reason === AskEndReasons.DISCUSS)
      return 'The user wants to discuss the plan instead of answering.'
    if (reason === AskEndReasons.DISMISSED) return 'The user dismissed the questions.'
    return undefined
  }
  if (error.code === 'ASK_TIMEOUT') {
    const span = waited(error.details)
    return span === undefined ? undefined : `Nobody answered within ${durationInWords(span)}.`
  }
  return undefined
}

/** The sentence for an error, taking its `details.reason` into account. */
export function nextStepFor(error: UserQuestionError): string {
  if (error.code === 'ASK_CANCELLED' && error.details?.reason === AskEndReasons.DISCUSS)
    return discussNextStep
  return nextStepByCode[error.code]
}

/** `CODE: what happened. What to do next.` — one line for the model. */
export function formatToolError(error: UserQuestionError): string {
  const happened =
    happenedSentence(error) ??
    error.message
      .replace(/\s+/g, ' ')
      .trim()
      .replace(/[.!?]?$/, '.')
  return `${error.code}: ${happened} ${nextStepFor(error)}`
}
