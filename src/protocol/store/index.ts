/// <reference types="node" preserve="true" />
/**
 * For writing a store of one's own (DESIGN §10): the store interface, the
 * row parsers every askseam store reads untrusted rows with, the outcomes a
 * store builds itself, and the contract suite a store must pass.
 *
 * @example
 * ```ts
 * import { storeContract } from 'askseam/store'
 * import { it } from 'vitest'
 *
 * const open = async () => {
 *   const path = freshPath()
 *   return { store: createMyStore(path), reopen: async () => createMyStore(path) }
 * }
 * for (const check of storeContract({ open })) it(check.name, check.run, check.timeoutMs)
 * ```
 */
export {
  isReplayedOutcome,
  isTimeoutOutcome,
  ownerGoneOutcome,
  readTraceContext,
  timeoutOutcome,
} from '../../vocabulary/index.js'
export type {
  AskErrorData,
  AskOutcome,
  AskPolicy,
  AskRejection,
  Responder,
  TraceContext,
} from '../../vocabulary/index.js'
export { CorruptRowError, parseAskRecord, parseOutcome } from './rows.js'
export { STORE_SCHEMA_VERSION } from './types.js'
export type {
  AdmitResult,
  AskHistory,
  AskHistoryEvent,
  AskRecord,
  AskStore,
  HistoryQuery,
  NewAskRecord,
  NewVote,
  NotificationClaim,
  NotificationClaimResult,
  NotificationEnding,
  NotificationEntry,
  NotificationFinish,
  NotificationLedger,
  RecordedEvent,
  SeamLease,
  SettleResult,
  StoreChange,
  VoteResult,
} from './types.js'
export { createMemoryStore } from './memory.js'
export type { MemoryStoreOptions } from './memory.js'
export { storeContract } from './contract.js'
export type { StoreCheck, StoreContractOptions } from './contract.js'
