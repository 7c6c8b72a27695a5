/**
 * askseam: the seam through which an agent asks a human and gets a structured,
 * validated answer back.
 *
 * @example
 * ```ts
 * import { createUserQuestions, UserQuestionError } from 'askseam'
 *
 * const seam = createUserQuestions({ timeoutMs: 120_000 })
 * const dispose = seam.registerProvider(myTerminalUi)
 * try {
 *   const { answers } = await seam.ask({ questions: [{ id: 'db', question: 'Which database?', options: [{ label: 'Postgres' }, { label: 'SQLite' }] }] })
 * } catch (error) {
 *   if (error instanceof UserQuestionError && error.code === 'ASK_CANCELLED') { ... }
 * }
 * ```
 */
export { createAgentRegistry } from './agents.js'
export type { MutableAgentRegistry } from './agents.js'
export {
  HarnessError,
  UserQuestionError,
  UserQuestionErrorCodes,
  isUserQuestionError,
  toUserQuestionError,
} from './errors.js'
export type {
  HarnessErrorOptions,
  UserQuestionErrorCode,
  UserQuestionErrorDetails,
} from './errors.js'
export { createUserQuestions } from './seam.js'
export type { InspectionObserver, UserQuestions, UserQuestionsOptions } from './seam.js'
export type {
  Agent,
  AgentRegistry,
  AskUserQuestionAnswer,
  AskUserQuestionAnswerItem,
  AskUserQuestionIntent,
  AskUserQuestionItem,
  AskUserQuestionOption,
  AskUserQuestionRequest,
  PendingAsk,
  PendingAskState,
  ProviderRequest,
  UserQuestionProvider,
} from './types.js'
export { MAX_TIMEOUT_MS, encodeAnswer, validateAnswer, validateRequest } from './validate.js'
export type { AnswerDraft, ValidateRequestOptions, ValidatedRequest } from './validate.js'
