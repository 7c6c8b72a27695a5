/**
 * The vocabulary of askseam: the types tools and UIs speak, the one error
 * class with its code tables, and the request, intent and answer rules. It
 * imports nothing else of askseam; every other layer builds on it.
 */
export {
  HarnessError,
  UserQuestionError,
  UserQuestionErrorCodes,
  isErrorCode,
  isUserQuestionError,
  toUserQuestionError,
} from './errors.js'
export type {
  HarnessErrorOptions,
  UserQuestionErrorCode,
  UserQuestionErrorDetails,
} from './errors.js'
export { durationInWords } from './words.js'
export {
  checkIntent,
  describePlanReview,
  isPlanReviewAsk,
  qualifiesForPlanReview,
} from './intent.js'
export type { PlanReviewChoice } from './intent.js'
export type {
  Agent,
  AgentRegistry,
  ApprovalCount,
  AskPolicy,
  AskUserQuestionAnswer,
  AskUserQuestionAnswerItem,
  AskUserQuestionIntent,
  AskUserQuestionItem,
  AskUserQuestionOption,
  AskUserQuestionRequest,
  PendingAsk,
  PendingAskState,
  ProviderAnswer,
  ProviderRequest,
  ProviderSettlement,
  Responder,
  UserQuestionProvider,
} from './types.js'
export {
  MAX_KEY_LENGTH,
  MAX_TIMEOUT_MS,
  checkNotAborted,
  isDuration,
  validateRequest,
} from './validate.js'
export type { ValidateRequestOptions, ValidatedRequest } from './validate.js'
export { abortReason, isFilled, isStorableId, toStorableId } from './read.js'
export { encodeAnswer, validateAnswer } from './answer.js'
export {
  MAX_ANSWERERS,
  MAX_APPROVALS,
  MAX_RESPONDER_FIELD_LENGTH,
  MAX_RESPONDER_ROLES,
  admits,
  alreadyVoted,
  forbiddenAnswer,
  hasApproved,
  isApproval,
  isResponderId,
  isResponderText,
  readAnsweringResponder,
  readPolicy,
  readResponder,
} from './policy.js'
export type { AnswerDraft } from './answer.js'
export { canonicalJson, canonicalQuestions, differenceOf, sameQuestions } from './canonical.js'
export type { AskTerms } from './canonical.js'
export {
  AskEndReasons,
  TIMEOUT_MESSAGE,
  callerAbortOutcome,
  endedAs,
  endingOf,
  errorData,
  handedOverOutcome,
  isHandOver,
  isReplayedOutcome,
  isTimeoutOutcome,
  noProviderOutcome,
  otherAskOutcome,
  outcomeError,
  outcomeName,
  ownerGoneOutcome,
  presentationEnding,
  providerGoneOutcome,
  seamClosedOutcome,
  seamFaultOutcome,
  settledElsewhereOutcome,
  storeFailedOutcome,
  timeoutOutcome,
} from './outcome.js'
export type {
  AskEndReason,
  AskEnding,
  AskErrorData,
  AskOutcome,
  AskOutcomeName,
  AskRejection,
} from './outcome.js'
export {
  MAX_TRACE_CONTEXT_ENTRIES,
  MAX_TRACE_CONTEXT_LENGTH,
  readTraceContext,
} from './trace-context.js'
export type { TraceContext } from './trace-context.js'
