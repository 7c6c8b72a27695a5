import { callerAbortOutcome } from '../../vocabulary/index.js'
import type { AskOutcome } from '../../vocabulary/index.js'
import type { StoreContractOptions } from './contract.js'
import type { AskStore, NewAskRecord, StoreChange } from './types.js'

/*
 * What the store contract's checks share: the handles a check gets, the asks
 * and outcomes it writes, and a bounded wait for a change feed. Not public
 * API (the `askseam/store` entry exports only `storeContract`); askseam's own
 * store tests write the same asks through it.
 */

/** @internal What a check's body gets: a handle on fresh storage, and a way to open more on it. */
export interface StorageHandles {
  store: AskStore
  /** Another handle on the same storage, closed with the rest when the check ends. */
  reopen(): Promise<AskStore>
}

/** @internal One check of the contract, before it is bound to storage. */
export interface CheckCase {
  name: string
  body(handles: StorageHandles): Promise<void>
  /** Only for stores that check deadlines against this clock. */
  clock?: NonNullable<StoreContractOptions['deadlineClock']>
  timeoutMs?: number
}

let sequence = 0

/**
 * @internal A new ask with an id no other process writing to the same
 * storage mints; `overrides` replace its fields.
 */
export function newAsk(overrides: Partial<NewAskRecord> = {}): NewAskRecord {
  sequence += 1
  return {
    askId: `contract-${process.pid}-${Date.now()}-${sequence}`,
    questions: [
      {
        id: 'db',
        question: 'Which database?',
        options: [{ label: 'Postgres' }, { label: 'SQLite', description: 'one file' }],
      },
    ],
    ownerSeamId: 'seam-a',
    startedAt: 1_700_000_000_000 + sequence,
    ...overrides,
  }
}

/** @internal An answer to {@link newAsk}'s question. */
export const answered: AskOutcome = {
  status: 'answered',
  answer: { answers: [{ id: 'db', selected: ['SQLite'] }] },
}

/** @internal The outcome of a caller's abort: not replayed, so it gives its key up. */
export const callerAborted: AskOutcome = callerAbortOutcome()

/** @internal The human dismissed the questions: replayed to the next ask with the key. */
export const cancelled: AskOutcome = {
  status: 'rejected',
  error: { code: 'ASK_CANCELLED', message: 'the user dismissed the questions' },
}

const DAY_MS = 86_400_000

/**
 * @internal A time a day ahead of this host's clock: a deadline there has not
 * passed by any store's clock, and a settlement stamped before it is in time.
 */
export const dayAhead = (): number => Date.now() + DAY_MS

/** @internal A time a day behind this host's clock: a deadline there has passed by any store's clock. */
export const dayBehind = (): number => Date.now() - DAY_MS

/**
 * @internal Whether `changes` hold one of `type` about `askId`, or a
 * `resync` (a feed may say that instead of any change).
 */
export function heard(
  changes: readonly StoreChange[],
  type: 'ask.admitted' | 'ask.settled',
  askId: string,
): boolean {
  return changes.some(
    (change) => change.type === 'resync' || (change.type === type && change.record.askId === askId),
  )
}

/**
 * @internal Waits until `check` holds, polling the event loop, for at most
 * `limitMs`: a change feed's delivery may be late (a poll), not lost.
 */
export async function until(check: () => boolean, what: string, limitMs = 5_000): Promise<void> {
  const end = Date.now() + limitMs
  while (!check()) {
    if (Date.now() > end) throw new Error(`storeContract: timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 5))
  }
}
