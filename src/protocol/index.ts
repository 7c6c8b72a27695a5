// The declarations name Node types (AbortSignal, streams, node:http); TypeScript 6+
// no longer loads @types/node unasked, so each entry point asks for it.
/// <reference types="node" preserve="true" />
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
export { createUserQuestions } from './seam.js'
export type { InspectionObserver, UserQuestions, UserQuestionsOptions } from './seam-api.js'
export { createAgentRegistry } from './agents.js'
export type { MutableAgentRegistry } from './agents.js'
export { createMemoryStore } from './store/memory.js'
export type { MemoryStoreOptions } from './store/memory.js'
export type { AskHistory, AskHistoryEvent, AskStore, HistoryQuery } from './store/types.js'
export type {
  AskTelemetry,
  PresentationTelemetry,
  PresentationVerdict,
  SeamTelemetry,
  TelemetryAsk,
  TelemetryPresentation,
  TelemetryResponder,
  TelemetrySettlement,
} from './telemetry.js'
export {
  AskEndReasons,
  HarnessError,
  MAX_KEY_LENGTH,
  MAX_TIMEOUT_MS,
  UserQuestionError,
  UserQuestionErrorCodes,
  describePlanReview,
  encodeAnswer,
  errorData,
  isUserQuestionError,
  outcomeError,
  outcomeName,
  qualifiesForPlanReview,
  readTraceContext,
  toUserQuestionError,
  validateAnswer,
  validateRequest,
} from '../vocabulary/index.js'
export type {
  Agent,
  AgentRegistry,
  AnswerDraft,
  ApprovalCount,
  AskPolicy,
  AskEndReason,
  AskEnding,
  AskErrorData,
  AskOutcome,
  AskOutcomeName,
  AskRejection,
  AskUserQuestionAnswer,
  AskUserQuestionAnswerItem,
  AskUserQuestionIntent,
  AskUserQuestionItem,
  AskUserQuestionOption,
  AskUserQuestionRequest,
  HarnessErrorOptions,
  PendingAsk,
  PendingAskState,
  PlanReviewChoice,
  ProviderAnswer,
  ProviderRequest,
  ProviderSettlement,
  Responder,
  TraceContext,
  UserQuestionErrorCode,
  UserQuestionErrorDetails,
  UserQuestionProvider,
  ValidateRequestOptions,
  ValidatedRequest,
} from '../vocabulary/index.js'
