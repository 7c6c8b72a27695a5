/*
 * What askseam's own layers above share with the protocol layer and nothing
 * else does: no entry point exports it (the package's `exports` map has no
 * path to this file).
 */
export { newSecret } from './secret.js'
export { importPeer } from './peer.js'
export { catchUpWithStore } from './seam-hooks.js'
export {
  CorruptRowError,
  notifyEach,
  parseAskRecord,
  parseNotificationRow,
  parseOutcome,
  parseRows,
  warnCorruptRowOnce,
} from './store/rows.js'
export { LEASE_RETENTION_MS, STORE_SCHEMA_VERSION } from './store/types.js'
export { createStoreReads } from './store/late-reads.js'
export type { StoreReads } from './store/late-reads.js'
export type {
  AdmitResult,
  AskRecord,
  AskStore,
  NewAskRecord,
  NotificationClaim,
  NotificationClaimResult,
  NotificationEnding,
  NotificationEntry,
  NotificationFinish,
  NotificationLedger,
  SeamLease,
  SettleResult,
  StoreChange,
} from './store/types.js'
export {
  TIMEOUT_MESSAGE,
  canonicalJson,
  isReplayedOutcome,
  isTimeoutOutcome,
  ownerGoneOutcome,
  timeoutOutcome,
} from '../vocabulary/index.js'
export type { AskOutcome } from '../vocabulary/index.js'
// The record of an ask (DESIGN §12), built the same way by every store.
export { historyOf, parseEventRow, readHistoryQuery } from './store/history.js'
export type {
  AskHistory,
  AskHistoryEvent,
  HistoryQuery,
  NewVote,
  RecordedEvent,
  VoteResult,
} from './store/types.js'
