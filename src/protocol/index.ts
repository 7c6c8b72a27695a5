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
export { createAgentRegistry } from './agents.js'
export type { MutableAgentRegistry } from './agents.js'
export {
  HarnessError,
  MAX_KEY_LENGTH,
  MAX_TIMEOUT_MS,
  UserQuestionError,
  UserQuestionErrorCodes,
  describePlanReview,
  encodeAnswer,
  isUserQuestionError,
  qualifiesForPlanReview,
  toUserQuestionError,
  validateAnswer,
  validateRequest,
} from '../vocabulary/index.js'
export type {
  Agent,
  AgentRegistry,
  AnswerDraft,
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
  ProviderRequest,
  ProviderSettlement,
  UserQuestionErrorCode,
  UserQuestionErrorDetails,
  UserQuestionProvider,
  ValidateRequestOptions,
  ValidatedRequest,
} from '../vocabulary/index.js'
export { createMemoryStore } from './memory-store.js'
export type { MemoryStoreOptions } from './memory-store.js'
/**
 * @internal Shared with askseam's own layers above (they import it through this
 * index); not public API, left out of the declarations.
 */
export { importPeer } from './peer.js'
/** @internal The stores' row loop and listener fan-out; see their TSDoc in store.ts. */
export { notifyEach, parseRows, warnCorruptRowOnce } from './store.js'
// For writing a store of one's own: the outcome rules and the row parser every
// askseam store uses.
export {
  CorruptRowError,
  LEASE_RETENTION_MS,
  OWNER_GONE_MESSAGE,
  STORE_SCHEMA_VERSION,
  TIMEOUT_MESSAGE,
  isReplayedOutcome,
  ownerGoneOutcome,
  parseAskRecord,
  parseStoredOutcome,
  restoreError,
  storeError,
  timeoutOutcome,
} from './store.js'
export type {
  AdmitResult,
  AskRecord,
  AskStore,
  NewAskRecord,
  SeamLease,
  SettleResult,
  StoreChange,
  StoredError,
  StoredOutcome,
} from './store.js'
export { createUserQuestions } from './seam.js'
export type { InspectionObserver, UserQuestions, UserQuestionsOptions } from './seam-api.js'
