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
/**
 * @internal Shared with askseam's own layers above (they import it through this
 * index); not public API, left out of the declarations.
 */
export {
  callerAbortOutcome,
  createCommitOffer,
  createPresenter,
  endingOf,
  errorData,
  noProviderOutcome,
  outcomeError,
  presentToProvider,
  seamClosedOutcome,
} from './ask.machine.js'
export type {
  AskContext,
  AskEnding,
  AskErrorData,
  AskEvent,
  AskInput,
  AskOutcome,
  AskOutput,
  CommitInput,
  CommitResult,
  PresentInput,
} from './ask.machine.js'
/** @internal What the seam gives `createPresenter`; not public API. */
export type { PresenterHooks } from './ask.machine.js'
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
/**
 * @internal Shared with askseam's own layers above (they import it through this
 * index); not public API, left out of the declarations.
 */
export { previewAnswer } from './questionnaire.machine.js'
export type {
  QuestionDraft,
  QuestionnaireCancelReason,
  QuestionnaireContext,
  QuestionnaireEvent,
  QuestionnaireInput,
  QuestionnaireOutput,
} from './questionnaire.machine.js'
export { relayAskMachine } from './relayAsk.machine.js'
export type {
  RelayAskContext,
  RelayAskEvent,
  RelayAskInput,
  RelayAskOutput,
  RelayOutcome,
} from './relayAsk.machine.js'
export { relayClientMachine } from './relayClient.machine.js'
export type {
  RelayClientContext,
  RelayClientEmitted,
  RelayClientEvent,
  RelayClientInput,
} from './relayClient.machine.js'
export { HOST_CLOSED_CODE, consoleConnectionMachine } from './consoleConnection.machine.js'
export type {
  ConsoleConnectionContext,
  ConsoleConnectionEmitted,
  ConsoleConnectionEnd,
  ConsoleConnectionEvent,
  ConsoleConnectionInput,
  ConsoleConnectionOutput,
} from './consoleConnection.machine.js'
export { terminalQueueMachine } from './terminalQueue.machine.js'
export type {
  TerminalQueueContext,
  TerminalQueueDropReason,
  TerminalQueueEmitted,
  TerminalQueueEvent,
} from './terminalQueue.machine.js'
