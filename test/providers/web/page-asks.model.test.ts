import { describe, expect, it } from 'vitest'
import { createActor } from 'xstate'
import type { SnapshotFrom } from 'xstate'
import { TestModel } from 'xstate/graph'
import { consoleAskMachine } from '../../../src/machines/index.js'
import type {
  ConsoleAskEvent,
  ConsoleAskOutput,
  ConsoleAskVerdict,
} from '../../../src/machines/index.js'
import { createPageAsks } from '../../../src/providers/web/page/asks.js'
import type { PageAsks } from '../../../src/providers/web/page/asks.js'
import type { Ask } from '../../../src/providers/web/page/queue-view.js'
import { installSessionStorage } from '../../support/session-storage.js'

/**
 * Paths generated from consoleAskMachine drive the page's own asks module
 * (src/providers/web/page/asks.ts) with the host's frames and the user's
 * questionnaire events, as the page does: after every step the page must
 * list the ask, send answers, start its questions over, say things to the
 * user and let it go exactly as the machine's path says.
 */

type Snapshot = SnapshotFrom<typeof consoleAskMachine>
const RPC_ID = 'r1'
const ME = 'ana'
const VERDICTS: ConsoleAskVerdict[] = ['accepted', 'counted', 'not-pending', 'refused']

/** Every event, in every state that is not final: the ones a state ignores must be ignored by the page too. */
function eventsFor(snapshot: Snapshot): ConsoleAskEvent[] {
  if (snapshot.status === 'done') return []
  return [
    { type: 'answered', frame: 'answered', sent: 'answered' },
    { type: 'answered', frame: 'dismissed', sent: 'dismissed' },
    { type: 'offered', counted: false },
    { type: 'offered', counted: true },
    { type: 'unoffered' },
    { type: 'resolved' },
    ...VERDICTS.map((verdict) => ({ type: 'receipt' as const, verdict })),
    { type: 'console.ended' },
  ]
}

const question = {
  id: 'db',
  question: 'Which database?',
  options: [{ label: 'Postgres' }, { label: 'SQLite' }],
}
const approvals = (counted: boolean) => ({ required: 2, given: counted ? [ME] : [] })
const requested = (counted: boolean) => ({
  type: 'question/requested',
  rpcId: RPC_ID,
  questions: [question],
  approvals: approvals(counted),
})

/** The tab's sessionStorage, where the page keeps the user's drafts. */
const storage = installSessionStorage()
const DRAFT = `askseam:draft:${RPC_ID}`

/** The page's asks, with everything it reported recorded. */
class World {
  sent: string[] = []
  told: string[] = []
  left: (ConsoleAskOutput | 'list')[] = []
  restarted = 0
  unconfirmed: number | undefined
  asks: PageAsks = createPageAsks(
    {
      send: (frame) => this.sent.push(frame),
      offered: () => undefined,
      arrived: () => undefined,
      returned: () => undefined,
      changed: () => undefined,
      left: (_ask, output) => this.left.push(output ?? 'list'),
      restarted: () => {
        this.restarted++
        this.touched = false
      },
      tell: (text) => this.told.push(text),
    },
    () => ME,
  )

  /** Whether the user changed the questionnaire the ask has now: only then is a draft saved. */
  touched = true

  constructor() {
    this.asks.frame(requested(false))
    // The user is halfway through: a choice made, not submitted.
    this.ask?.actor.send({ type: 'option.chosen', label: 'Postgres' })
  }

  get ask(): Ask | undefined {
    return this.asks.get(RPC_ID)
  }

  perform(event: ConsoleAskEvent): void {
    switch (event.type) {
      case 'answered': {
        // The user finishes the questionnaire on the page: the machine hears of it from there.
        // Only on an ask the page lists: one carried aside is not shown.
        const questions = this.ask?.actor
        if (!this.asks.isListed(RPC_ID) || questions?.getSnapshot().status !== 'active') return
        if (event.sent === 'dismissed') return questions.send({ type: 'batch.cancelled' })
        questions.send({ type: 'option.chosen', label: 'SQLite' })
        return questions.send({ type: 'batch.submitted' })
      }
      case 'offered':
        return void this.asks.frame(requested(event.counted))
      case 'unoffered':
        return this.asks.unoffered([RPC_ID])
      case 'resolved':
        return void this.asks.frame({
          type: 'question/resolved',
          rpcId: RPC_ID,
          outcome: 'cancelled',
        })
      case 'receipt':
        return void this.asks.frame({ type: 'receipt', rpcId: RPC_ID, ...receiptOf(event.verdict) })
      case 'console.ended':
        this.unconfirmed = this.asks.ended()
    }
  }
}

function receiptOf(verdict: ConsoleAskVerdict): Record<string, unknown> {
  if (verdict === 'accepted') return { accepted: true }
  if (verdict === 'counted') return { accepted: true, counted: approvals(true) }
  if (verdict === 'not-pending') return { accepted: false, reason: 'not-pending' }
  return { accepted: false, reason: 'bad-response', message: 'no such option' }
}

/** The `question/respond` frame the page sends for what the user did. */
function respond(sent: string): unknown {
  return {
    type: 'question/respond',
    rpcId: RPC_ID,
    result:
      sent === 'answered'
        ? { ok: true, value: { answers: [{ id: 'db', selected: ['SQLite'] }] } }
        : { ok: false, error: { code: 'cancelled', reason: 'dismissed' } },
  }
}

/** What the page must tell the user on `event`, taken from `from` to `to`. */
function toldOn(event: ConsoleAskEvent, from: Snapshot, to: Snapshot): string[] {
  // An event the machine did not take (the same snapshot) says nothing.
  if (from.status === 'done') return []
  if (event.type === 'receipt') {
    if (event.verdict === 'counted')
      return ['Your approval was counted: 1 of 2; waiting for 1 more.']
    if (event.verdict === 'not-pending') {
      return ['“Which database?” was already settled; your answer was not used.']
    }
    if (event.verdict === 'refused') return ['The host did not accept the answer: no such option.']
    return []
  }
  if (event.type === 'resolved' && to.matches('resolved'))
    return ['“Which database?” was dismissed.']
  if (event.type === 'unoffered' && from.hasTag('listed')) {
    return ['“Which database?” is no longer waiting: it ended while the console was away.']
  }
  return []
}

/**
 * Every simple path of the machine, and each of its prefixes extended by
 * every event once more, so the events a state ignores, and self-loops, are
 * driven too.
 */
function modelPaths(): ConsoleAskEvent[][] {
  const model = new TestModel(consoleAskMachine as never, {
    events: eventsFor as never,
    serializeState: ((snapshot: Snapshot) =>
      JSON.stringify([snapshot.value, snapshot.context.sent?.kind])) as never,
  })
  const unique = new Map<string, ConsoleAskEvent[]>()
  for (const path of model.getSimplePaths()) {
    // Each step holds its event and the state it led to; the first is the machine's start.
    const steps = path.steps.filter((step) => step.event.type !== 'xstate.init')
    const events = steps.map((step) => step.event as ConsoleAskEvent)
    for (let end = 0; end <= events.length; end++) {
      const prefix = events.slice(0, end)
      const last = steps[end - 1]?.state ?? createActor(consoleAskMachine).getSnapshot()
      for (const next of [undefined, ...eventsFor(last as Snapshot)]) {
        const extended = next === undefined ? prefix : [...prefix, next]
        unique.set(JSON.stringify(extended), extended)
      }
    }
  }
  return [...unique.values()]
}

describe('consoleAskMachine paths drive the page’s asks', () => {
  const paths = modelPaths()

  it(`${paths.length} paths`, () => {
    const seen = new Set<string>()
    for (const path of paths) {
      storage.clear()
      const world = new World()
      // The model, replayed beside the page: what it emits is what the page must do.
      const model = createActor(consoleAskMachine)
      const emitted: string[] = []
      model.on('answer.send', () => emitted.push('send'))
      model.on('questions.restart', () => emitted.push('restart'))
      model.start()
      for (const event of path) {
        const before = model.getSnapshot()
        const counts = {
          sent: world.sent.length,
          told: world.told.length,
          left: world.left.length,
          restarted: world.restarted,
          emitted: emitted.length,
        }
        const questionsBefore = world.ask?.actor
        world.perform(event)
        model.send(event)
        const after = model.getSnapshot()
        seen.add(JSON.stringify(after.value))
        const said = JSON.stringify(event)
        const now = emitted.slice(counts.emitted)

        expect(world.asks.isListed(RPC_ID), said).toBe(after.hasTag('listed'))
        expect(world.ask === undefined, said).toBe(after.status === 'done')
        // Each answer the model sends is the one the user gave, as the page writes it.
        const kind = after.context.sent?.kind ?? before.context.sent?.kind
        expect(
          world.sent.slice(counts.sent).map((frame) => JSON.parse(frame) as unknown),
          said,
        ).toEqual(now.filter((each) => each === 'send').map(() => respond(kind ?? '')))
        expect(world.restarted - counts.restarted, said).toBe(
          now.filter((each) => each === 'restart').length,
        )
        if (now.includes('restart')) {
          // Started over: a new questionnaire, from nothing.
          expect(world.ask?.actor).not.toBe(questionsBefore)
          expect(world.ask?.actor.getSnapshot().context.drafts.db?.selected).toEqual([])
        }
        expect(world.told.slice(counts.told), said).toEqual(toldOn(event, before, after))
        const leftList =
          before.hasTag('listed') && !after.hasTag('listed') && after.status !== 'done'
        expect(world.left.slice(counts.left), said).toEqual(
          after.status === 'done' && before.status !== 'done'
            ? [after.output]
            : leftList
              ? ['list']
              : [],
        )
        // A draft is kept while the user's questionnaire is under way, and only then.
        expect(storage.has(DRAFT), said).toBe(
          world.ask?.actor.getSnapshot().status === 'active' && world.touched,
        )
        if (event.type === 'console.ended') {
          expect(world.unconfirmed, said).toBe(after.output?.sent === undefined ? 0 : 1)
        }
      }
    }
    expect([...seen].sort()).toEqual(
      [
        '"accepted"',
        '"awaitingReceipt"',
        '"carried"',
        '"consoleEnded"',
        '"counted"',
        '"notPending"',
        '"refused"',
        '"resolved"',
        '{"shown":"answering"}',
        '{"shown":"sent"}',
      ].sort(),
    )
  })
})
