// The declarations name Node types (AbortSignal, streams, node:http); TypeScript 6+
// no longer loads @types/node unasked, so each entry point asks for it.
/// <reference types="node" preserve="true" />
/**
 * Every statechart of askseam, for embedding, inspection and Stately.
 *
 * @example
 * ```ts
 * import { askMachine } from 'askseam/machines'
 * import { createActor } from 'xstate'
 * ```
 */
export { askMachine } from './ask.machine.js'
export { MAX_COMMIT_RETRIES } from './ask.context.js'
export type {
  AdmissionResult,
  AskCause,
  AskContext,
  AskEmitted,
  AskEvent,
  AskInput,
  AskOutput,
  AskProposal,
  Decided,
  HeldAsk,
  OwnAsk,
  UnwrittenEnding,
} from './ask.context.js'
export { MAX_RETRY_DELAY_MS, presentationMachine, retryDelay } from './presentation.machine.js'
export type {
  PresentationContext,
  PresentationEvent,
  PresentationInput,
  PresentationOutput,
  ProviderVerdict,
} from './presentation.machine.js'
export { HEARTBEAT_MS, LEASE_MS, MAX_UNWRITTEN, fleetMachine } from './fleet.machine.js'
export type {
  FleetContext,
  FleetEmitted,
  FleetEvent,
  FleetInput,
  LeaseRead,
  LeaseWrite,
} from './fleet.machine.js'
export { MAX_DELAY_MS, clampDelay } from './time.js'
export { webhookDeliveryMachine, webhookRetryDelay } from './webhookDelivery.machine.js'
export { FIRST_WEBHOOK_RETRY_MS, MAX_WEBHOOK_RETRY_MS } from './webhookDelivery.types.js'
export type {
  WebhookAskRead,
  WebhookClaimInput,
  WebhookClaimOutput,
  WebhookDeliveryContext,
  WebhookDeliveryEmitted,
  WebhookDeliveryEnding,
  WebhookDeliveryEvent,
  WebhookDeliveryInput,
  WebhookDeliveryOutput,
  WebhookEventKind,
  WebhookFinishInput,
  WebhookSendOutput,
} from './webhookDelivery.types.js'
export { seamMachine } from './seam.machine.js'
export type { SeamContext, SeamEmitted, SeamEvent } from './seam.machine.js'
export {
  canSubmit,
  currentQuestion,
  draftOf,
  isQuestionAnswered,
  questionnaireAnswer,
  questionnaireMachine,
} from './questionnaire.machine.js'
export { previewAnswer } from './questionnaire.machine.js'
// What a custom UI needs beside the questionnaire: the plan review's reading of a question.
export { describePlanReview, qualifiesForPlanReview } from '../vocabulary/index.js'
export type { AskEnding, AskRejection, PlanReviewChoice } from '../vocabulary/index.js'
export type {
  QuestionDraft,
  QuestionnaireCancelReason,
  QuestionnaireContext,
  QuestionnaireEvent,
  QuestionnaireInput,
  QuestionnaireOutput,
} from './questionnaire.machine.js'
export { relayAskMachine, responseEvent } from './relayAsk.machine.js'
export type {
  HeldResponse,
  RelayAskContext,
  RelayAskEmitted,
  RelayAskEvent,
  RelayAskInput,
  RelayAskOutput,
  RelayOutcome,
  RelayReceiptReason,
  RelayResponse,
  RelayResponseEvent,
  RelaySettlingResponse,
} from './relayAsk.machine.js'
export { relayClientMachine } from './relayClient.machine.js'
export type {
  RelayClientContext,
  RelayClientEmitted,
  RelayClientEvent,
  RelayClientInput,
} from './relayClient.machine.js'
export {
  CONSOLE_RESTARTING_CODE,
  HOST_CLOSED_CODE,
  consoleConnectionMachine,
} from './consoleConnection.machine.js'
export type {
  ConsoleConnectionContext,
  ConsoleConnectionEmitted,
  ConsoleConnectionEnd,
  ConsoleConnectionEvent,
  ConsoleConnectionInput,
  ConsoleConnectionOutput,
} from './consoleConnection.machine.js'
export { consoleAskMachine } from './consoleAsk.machine.js'
export type {
  ConsoleAskContext,
  ConsoleAskEmitted,
  ConsoleAskEvent,
  ConsoleAskLeft,
  ConsoleAskOutput,
  ConsoleAskSent,
  ConsoleAskVerdict,
} from './consoleAsk.machine.js'
export { KEEP_ALIVE_MS, keepAliveMachine } from './keepAlive.machine.js'
export type {
  KeepAliveContext,
  KeepAliveEmitted,
  KeepAliveEvent,
  KeepAliveInput,
} from './keepAlive.machine.js'
export { terminalQueueMachine } from './terminalQueue.machine.js'
export type {
  TerminalQueueContext,
  TerminalQueueDropReason,
  TerminalQueueEmitted,
  TerminalQueueEvent,
} from './terminalQueue.machine.js'
