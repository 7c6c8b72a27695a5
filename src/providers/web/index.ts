// The declarations name Node types (AbortSignal, streams, node:http); TypeScript 6+
// no longer loads @types/node unasked, so each entry point asks for it.
/// <reference types="node" preserve="true" />
/**
 * askseam/web: the host relay (the seam's provider, forwarding each ask to
 * connected clients over pinned JSON frames) and the web console (one HTTP
 * server with the console page and the relay's WebSocket endpoint).
 *
 * @example
 * ```ts
 * import { createUserQuestions } from 'askseam'
 * import { startWebConsole } from 'askseam/web'
 *
 * const seam = createUserQuestions({ timeoutMs: 600_000 })
 * const web = await startWebConsole({ seam })
 * console.log(`Answer in your browser: ${web.url}`)
 * ```
 */
export { createRelay } from './relay.js'
export type {
  Relay,
  RelayClient,
  RelayCloseReason,
  RelayConnection,
  RelayOptions,
  RelayPendingAsk,
  RelayReceipt,
} from './relay-types.js'
export { MAX_FRAME_BYTES, MIN_TOKEN_BITS, MIN_TOKEN_LENGTH, startWebConsole } from './server.js'
export type { WebConsole, WebConsoleClient, WebConsoleOptions } from './server.js'
export type { WebConsoleUser } from './users.js'
export { ApiErrorCodes, MAX_BODY_BYTES } from './api-errors.js'
export type { ApiErrorCode } from './api-errors.js'
export { RelayErrorCodes } from './frames.js'
export type {
  ApprovalIds,
  CancelReason,
  ClientFrame,
  ErrorFrame,
  HelloFrame,
  QuestionRequestedFrame,
  QuestionResolvedFrame,
  QuestionRespondFrame,
  ReceiptFrame,
  ReceiptReason,
  RelayErrorCode,
  RespondResult,
  ServerFrame,
} from './frames.js'
export type { RelayOutcome } from '../../machines/index.js'
