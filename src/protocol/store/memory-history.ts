import { frozenJson, snapshot } from './memory-asks.js'
import type { AskTable } from './memory-asks.js'
import { historyOf, matchesQuery, readHistoryQuery } from './history.js'
import type {
  AskHistory,
  AskHistoryEvent,
  HistoryQuery,
  NewVote,
  RecordedEvent,
  SettleResult,
  VoteResult,
} from './types.js'
import { hasApproved } from '../../vocabulary/index.js'
import type { AskOutcome } from '../../vocabulary/index.js'

/**
 * A memory store's votes and events (DESIGN §12), kept beside its asks and
 * forgotten with them. `settle` is the store's own conditional write.
 */
export function memoryRecords(
  table: AskTable,
  settle: (askId: string, outcome: AskOutcome, settledAt: number) => SettleResult | undefined,
  notified: (askId: string) => AskHistoryEvent[],
) {
  const events = new Map<string, AskHistoryEvent[]>()
  const append = (askId: string, event: AskHistoryEvent) => {
    const kept = events.get(askId)
    if (kept === undefined) events.set(askId, [frozenJson(event)])
    else kept.push(frozenJson(event))
  }
  const votesOf = (askId: string) =>
    (events.get(askId) ?? []).flatMap((event) =>
      event.type === 'vote' && event.by !== undefined ? [event.by] : [],
    )

  return {
    vote(askId: string, vote: NewVote): VoteResult | undefined {
      const record = table.asks.get(askId)
      if (record === undefined) return undefined
      const overdue = record.deadline !== undefined && record.deadline <= vote.at
      if (record.state !== 'pending' || overdue) {
        // A settled ask stays as it is; an overdue one is settled with its timeout.
        const settled = settle(askId, vote.outcome, vote.at) as SettleResult
        return { status: 'settled', record: settled.record, won: false }
      }
      const given = votesOf(askId)
      if (hasApproved(given, vote.by)) {
        return { status: 'already-voted', given }
      }
      append(askId, { at: vote.at, type: 'vote', by: vote.by })
      const now = [...given, vote.by]
      if (now.length < vote.required) return { status: 'counted', given: now }
      const settled = settle(askId, { ...vote.outcome, by: now }, vote.at) as SettleResult
      return { status: 'settled', record: settled.record, won: settled.won }
    },

    votes: votesOf,

    record(askId: string, event: RecordedEvent): void {
      if (table.asks.has(askId)) append(askId, event)
    },

    async history(query: HistoryQuery): Promise<AskHistory[]> {
      const checked = readHistoryQuery(query)
      const found = [...table.asks.values()]
        .filter((record) => matchesQuery(record, checked))
        .sort((a, b) => b.startedAt - a.startedAt || (a.askId < b.askId ? 1 : -1))
        .slice(0, checked.limit)
      return Promise.all(
        found.map((record) =>
          historyOf(snapshot(record), [
            ...(events.get(record.askId) ?? []),
            ...notified(record.askId),
          ]),
        ),
      )
    },

    forget(askId: string): void {
      events.delete(askId)
    },
  }
}
