/**
 * What a batch leaves on screen when it ends: one line per answered question,
 * or why the batch was withdrawn and what the user had typed.
 */
import { toUserQuestionError } from '../../protocol/index.js'
import type {
  AskUserQuestionAnswer,
  AskUserQuestionItem,
  UserQuestionError,
} from '../../protocol/index.js'
import { AskEndReasons, durationInWords } from '../../vocabulary/index.js'
import type { TerminalStyle } from './style.js'
import { sanitize, truncate } from './text.js'

/** One line per question of an answered batch: its title and what was answered, or skipped. */
export function describeOutcome(
  questions: readonly AskUserQuestionItem[],
  answer: AskUserQuestionAnswer,
  style: TerminalStyle,
  width: number,
): string[] {
  return answer.answers.map((item, index) => {
    const question = questions[index]
    const title = sanitize(question?.header ?? question?.question ?? item.id)
    const parts = [...item.selected, ...(item.custom === undefined ? [] : [`“${item.custom}”`])]
    const value = parts.length === 0 ? 'skipped' : sanitize(parts.join(', '))
    const line = truncate(`${title} · ${value}`, width - 2)
    return parts.length === 0 ? ` ${style.dim(`↷ ${line}`)}` : ` ${style.success('✔')} ${line}`
  })
}

/** Why a batch went, as one line. */
export function withdrawnLine(error: UserQuestionError, style: TerminalStyle): string {
  const reason = error.details?.reason
  const waited =
    typeof error.details?.deadline === 'number' && typeof error.details.startedAt === 'number'
      ? ` after ${durationInWords(error.details.deadline - error.details.startedAt)}`
      : ''
  const why =
    error.code === 'ASK_CANCELLED'
      ? reason === AskEndReasons.DISCUSS
        ? 'You chose to discuss the plan instead'
        : 'Questions dismissed'
      : error.code === 'ASK_TIMEOUT'
        ? `Time ran out${waited}: the agent was told nobody answered`
        : reason === AskEndReasons.CALLER_ABORTED
          ? 'The agent withdrew the questions'
          : reason === AskEndReasons.INPUT_CLOSED
            ? 'The terminal input closed'
            : reason === AskEndReasons.PROVIDER_DISPOSED
              ? 'The terminal stopped asking'
              : `The questions were withdrawn (${error.code})`
  return ` ${style.danger('✖')} ${why}`
}

/** The lines a batch leaves when it is taken down: why, and what the user had typed. */
export function takenDownLines(
  reason: unknown,
  typed: readonly string[],
  style: TerminalStyle,
  width: number,
): string[] {
  const error = toUserQuestionError(reason, 'ASK_ABORTED', 'the ask was aborted')
  return [
    withdrawnLine(error, style),
    ...typed.map(
      (text) => `   ${style.dim(truncate(`You had typed (not sent): “${text}”`, width - 4))}`,
    ),
  ]
}
