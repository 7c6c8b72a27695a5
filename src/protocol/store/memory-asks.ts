import {
  isReplayedOutcome,
  isTimeoutOutcome,
  ownerGoneOutcome,
  timeoutOutcome,
} from '../../vocabulary/index.js'
import type { AskOutcome } from '../../vocabulary/index.js'
import { parseAskRecord } from './rows.js'
import type { AdmitResult, AskRecord, NewAskRecord, SettleResult, StoreChange } from './types.js'

/**
 * The asks a memory store holds: by id, in admission order (which `pending`
 * keeps), the ask each key names, and the settled asks without a key it keeps.
 */
export interface AskTable {
  asks: Map<string, AskRecord>
  byKey: Map<string, string>
  settledKeyless: { add(askId: string): void; delete(askId: string): void }
}

/**
 * A copy of `record` to hand out. Records handed out are copies whose nested
 * parts (questions, outcome) are deeply frozen and shared: no holder can
 * change what the store holds, and an ask costs no deep copy per read. What
 * is written is kept as JSON would keep it, as a database's JSON column does.
 */
export const snapshot = (record: AskRecord): AskRecord => ({ ...record })

/**
 * Admits `ask` unless its key holds a pending ask, or one whose outcome is
 * replayed (DESIGN §10); an outcome that said nothing about the human gives
 * its key up.
 */
export function admitTo(held: AskTable, ask: NewAskRecord): AdmitResult {
  const { asks, byKey } = held
  if (asks.has(ask.askId)) throw new Error(`askId ${ask.askId} is already in the store`)
  const existing = ask.key === undefined ? undefined : asks.get(byKey.get(ask.key) ?? '')
  if (existing !== undefined) {
    if (existing.state === 'pending' || isReplayedOutcome(existing.outcome as AskOutcome)) {
      return { status: 'existing', record: { ...existing } }
    }
    delete existing.key
    held.settledKeyless.add(existing.askId)
  }
  // Parsed like any row read back, so a memory store is no more lenient than a database.
  const record = parseAskRecord({
    ...ask,
    questions: Object.isFrozen(ask.questions) ? ask.questions : frozenJson(ask.questions),
    state: 'pending',
  })
  asks.set(record.askId, record)
  if (record.key !== undefined) byKey.set(record.key, record.askId)
  return { status: 'admitted', record: { ...record } }
}

/**
 * The settlements of a memory store's asks: one by its writer, or every
 * pending ask a sweep ends. Each is told to `notify` as it happens.
 */
export function memorySettlements(table: AskTable, notify: (change: StoreChange) => void) {
  const settleNow = (record: AskRecord, outcome: AskOutcome, settledAt: number): AskRecord => {
    // Copied first: an outcome JSON cannot write throws with the ask left as it was, as a database's write would.
    const kept = frozenJson(outcome)
    record.state = 'settled'
    record.outcome = kept
    record.settledAt = settledAt
    const settled = snapshot(record)
    notify({ type: 'ask.settled', record: settled })
    if (record.key === undefined) table.settledKeyless.add(record.askId)
    return settled
  }

  /** Settles, at `now`, every pending ask `ending` names an outcome for. */
  const settleEach = (now: number, ending: (record: AskRecord) => AskOutcome | undefined) => {
    const ended: AskRecord[] = []
    for (const record of table.asks.values()) {
      const outcome = record.state === 'pending' ? ending(record) : undefined
      if (outcome !== undefined) ended.push(settleNow(record, outcome, now))
    }
    return ended
  }

  return {
    settle(askId: string, outcome: AskOutcome, settledAt: number): SettleResult | undefined {
      const record = table.asks.get(askId)
      if (record === undefined) return undefined
      if (record.state !== 'pending') return { record: snapshot(record), won: false }
      // A deadline is final: past it, the one outcome left is the timeout.
      if (
        record.deadline !== undefined &&
        record.deadline <= settledAt &&
        !isTimeoutOutcome(outcome)
      ) {
        return { record: settleNow(record, timeoutOutcome(record), settledAt), won: false }
      }
      return { record: settleNow(record, outcome, settledAt), won: true }
    },

    expireOverdue(now: number): AskRecord[] {
      return settleEach(now, (record) =>
        record.deadline !== undefined && record.deadline <= now
          ? timeoutOutcome(record)
          : undefined,
      )
    },

    /** Ends, at `now`, every pending ask without a key whose owner `holds` no live lease. */
    endOrphans(now: number, holds: (seamId: string) => boolean): AskRecord[] {
      return settleEach(now, (record) =>
        record.key === undefined && !holds(record.ownerSeamId) ? ownerGoneOutcome() : undefined,
      )
    },
  }
}

/**
 * Forgets every ask settled before `settledBefore` (and `forget`s its other
 * traces); returns how many.
 */
export function purgeFrom(
  table: AskTable,
  settledBefore: number,
  forget: (askId: string) => void,
): number {
  const { asks, byKey } = table
  let purged = 0
  for (const [askId, record] of asks) {
    if (record.state === 'settled' && (record.settledAt as number) < settledBefore) {
      asks.delete(askId)
      forget(askId)
      table.settledKeyless.delete(askId)
      if (record.key !== undefined && byKey.get(record.key) === askId) byKey.delete(record.key)
      purged += 1
    }
  }
  return purged
}

/**
 * A deeply frozen copy of `value` as a database's JSON column keeps it: JSON
 * itself writes and reads it, so what JSON leaves out (a function,
 * `undefined`) is gone, a `Date` is text, a number JSON cannot write is
 * `null`, and a `bigint` throws as it would on the way to a database.
 */
export function frozenJson<T>(value: T): T {
  return deepFreeze(JSON.parse(JSON.stringify(value)) as T)
}

/** Freezes `value` and everything in it (a primitive counts as frozen already). */
function deepFreeze<T>(value: T): T {
  if (Object.isFrozen(value)) return value
  for (const inner of Object.values(value as object)) deepFreeze(inner)
  return Object.freeze(value)
}
