import type {
  AskUserQuestionItem,
  UserQuestionError,
  UserQuestionErrorCode,
} from '../protocol/index.js'
import { AskEndReasons, durationInWords, isPlanReviewAsk } from '../vocabulary/index.js'

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

/** A "discuss" of questions that are not a plan review: the user wants to talk before answering. */
export const discussQuestionsNextStep =
  'Do not assume an answer or act on what you asked about: stop and wait for their message.'

function waited(details: Readonly<Record<string, unknown>> | undefined): number | undefined {
  const deadline = details?.deadline
  const startedAt = details?.startedAt
  if (typeof deadline !== 'number' || typeof startedAt !== 'number') return undefined
  return deadline >= startedAt ? deadline - startedAt : undefined
}

const isDiscuss = (error: UserQuestionError): boolean =>
  error.code === 'ASK_CANCELLED' && error.details?.reason === AskEndReasons.DISCUSS

const isPlan = (questions: readonly AskUserQuestionItem[] | undefined): boolean =>
  questions !== undefined && isPlanReviewAsk(questions)

/**
 * What happened, in the words the model reads, for the outcomes every UI
 * reaches the same way (a dismissal, a "discuss", a deadline): the sentence
 * comes from the code and `details`, never from the UI's own message, so a
 * web "Discuss" and a terminal "Discuss" read the same, and a cancel with no
 * reason (an MCP client's cancel or decline, a UI of your own that throws
 * `ASK_CANCELLED`) reads as the dismissal it is. A "discuss" names the plan
 * only when `questions` were a plan review. `undefined`: the error's message
 * says it (it names the field, the rule, the package…).
 */
export function happenedSentence(
  error: UserQuestionError,
  questions?: readonly AskUserQuestionItem[],
): string | undefined {
  if (error.code === 'ASK_CANCELLED') {
    if (!isDiscuss(error)) return 'The user dismissed the questions.'
    return isPlan(questions)
      ? 'The user wants to discuss the plan instead of answering.'
      : 'The user wants to talk it over instead of answering.'
  }
  if (error.code === 'ASK_TIMEOUT') {
    const span = waited(error.details)
    return span === undefined ? undefined : `Nobody answered within ${durationInWords(span)}.`
  }
  return undefined
}

/** The sentence for an error, taking its `details.reason`, and whether `questions` were a plan review, into account. */
export function nextStepFor(
  error: UserQuestionError,
  questions?: readonly AskUserQuestionItem[],
): string {
  if (!isDiscuss(error)) return nextStepByCode[error.code]
  return isPlan(questions) ? discussNextStep : discussQuestionsNextStep
}

/**
 * `CODE: what happened. What to do next.` — one line for the model.
 * `questions`, the batch that was asked, lets a "discuss" say whether it is
 * about a plan; without them it is said of the questions.
 */
export function formatToolError(
  error: UserQuestionError,
  questions?: readonly AskUserQuestionItem[],
): string {
  const happened =
    happenedSentence(error, questions) ??
    error.message
      .replace(/\s+/g, ' ')
      .trim()
      .replace(/[.!?]?$/, '.')
  return `${error.code}: ${happened} ${nextStepFor(error, questions)}`
}
