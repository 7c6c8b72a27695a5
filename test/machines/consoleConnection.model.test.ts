import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { getNextSnapshot } from 'xstate'
import type { SnapshotFrom } from 'xstate'
import { TestModel } from 'xstate/graph'
import {
  CONSOLE_RESTARTING_CODE,
  HOST_CLOSED_CODE,
  consoleConnectionMachine,
} from '../../src/machines/index.js'
import type { ConsoleConnectionEnd, ConsoleConnectionEvent } from '../../src/machines/index.js'
import { connectToHost } from '../../src/providers/web/page/connection.js'
import type { Connection, SocketLike } from '../../src/providers/web/page/connection.js'

/**
 * Paths generated from consoleConnectionMachine drive the page's own
 * connection module (src/providers/web/page/connection.ts) against fake
 * sockets under fake timers: after every step the state the page would show,
 * the sockets it opened and the frames it sent must be what the machine says.
 */

type Snapshot = SnapshotFrom<typeof consoleConnectionMachine>
// The two outages: after a drop, and after the console said it restarts (its own, longer budget).
const OUTAGES = ['reconnecting', 'restarting'] as const
type Outage = (typeof OUTAGES)[number]
const retry = (outage: Outage) => `xstate.after.retryDelay.consoleConnection.${outage}.waiting`
const giveUp = (outage: Outage) =>
  `xstate.after.${outage === 'reconnecting' ? 'giveUp' : 'restartGiveUp'}.consoleConnection.${outage}`
const GRACE = 'xstate.after.reofferGrace.consoleConnection.online.replaying'
type ModelEvent =
  | ConsoleConnectionEvent
  | { type: string; outage: Outage; giveUp?: true }
  | { type: typeof GRACE; grace: true }
const timing = {
  retryBaseMs: 100,
  retryMaxMs: 100,
  giveUpMs: 10_000,
  restartGiveUpMs: 20_000,
  reofferGraceMs: 1_000,
}

/**
 * What may happen in `snapshot`; with `replay`, also the page leaving an
 * ask and the re-offer grace running out.
 */
function eventsFor(snapshot: Snapshot, replay: boolean): ModelEvent[] {
  if (snapshot.status === 'done') return []
  const events: ModelEvent[] = [
    { type: 'send', frame: 'A' },
    { type: 'ask.offered', rpcId: 'a' },
  ]
  if (replay) events.push({ type: 'ask.left', rpcId: 'a' })
  if (replay && snapshot.matches({ online: 'replaying' })) events.push({ type: GRACE, grace: true })
  const socketOpen = snapshot.matches('online')
  const socketPending =
    snapshot.matches('connecting') ||
    OUTAGES.some((outage) => snapshot.matches({ [outage]: 'trying' }))
  if (socketPending) events.push({ type: 'socket.opened' })
  if (socketPending || socketOpen) {
    events.push(
      { type: 'socket.closed', code: 1006 },
      { type: 'socket.closed', code: HOST_CLOSED_CODE },
      { type: 'socket.closed', code: CONSOLE_RESTARTING_CODE },
    )
  }
  for (const outage of OUTAGES) {
    if (snapshot.matches({ [outage]: 'waiting' })) events.push({ type: retry(outage), outage })
    // Only from `trying`, where no retry timer is armed, so the clock fires the give-up alone.
    if (snapshot.matches({ [outage]: 'trying' })) {
      events.push({ type: giveUp(outage), outage, giveUp: true })
    }
  }
  return events
}

const serializeState = (snapshot: Snapshot, replay: boolean) =>
  JSON.stringify([
    snapshot.status,
    snapshot.value,
    ...(replay ? [snapshot.context.shown, snapshot.context.unoffered] : []),
  ])
const serializeEvent = (event: ModelEvent) => JSON.stringify(event)

class FakeSocket implements SocketLike {
  sent: string[] = []
  closed = false
  private listeners = new Map<string, ((event: never) => void)[]>()
  addEventListener(type: string, listener: (event: never) => void): void {
    this.listeners.set(type, [...(this.listeners.get(type) ?? []), listener])
  }
  fire(type: string, event: unknown = {}): void {
    for (const listener of this.listeners.get(type) ?? []) listener(event as never)
  }
  send(data: string): void {
    this.sent.push(data)
  }
  close(): void {
    this.closed = true
  }
}

class World {
  sockets: FakeSocket[] = []
  states: string[] = []
  endings: ConsoleConnectionEnd[] = []
  unoffered: string[][] = []
  /** When the page last said it is offline, for each outage: its give-up budget runs from then. */
  since: Record<Outage, number> = { reconnecting: 0, restarting: 0 }
  connection: Connection = connectToHost({
    url: 'ws://host.invalid/ws',
    openSocket: () => {
      const socket = new FakeSocket()
      this.sockets.push(socket)
      return socket
    },
    onFrame: () => undefined,
    onEnded: (reason) => this.endings.push(reason),
    onUnoffered: (rpcIds) => this.unoffered.push(rpcIds),
    onState: (state) => {
      this.states.push(state)
      if (state === 'reconnecting' || state === 'restarting') this.since[state] = Date.now()
    },
    timing,
  })

  get socket(): FakeSocket {
    return this.sockets.at(-1)!
  }

  async perform(event: ModelEvent): Promise<void> {
    if ('grace' in event) return void (await vi.advanceTimersByTimeAsync(timing.reofferGraceMs))
    if ('outage' in event) {
      const { outage } = event
      const budget = outage === 'reconnecting' ? timing.giveUpMs : timing.restartGiveUpMs
      const wait = event.giveUp ? this.since[outage] + budget - Date.now() : timing.retryMaxMs
      return void (await vi.advanceTimersByTimeAsync(wait))
    }
    switch (event.type) {
      case 'socket.opened':
        return this.socket.fire('open')
      case 'socket.closed':
        return this.socket.fire('close', { code: event.code })
      case 'send':
        return this.connection.send(event.frame)
      case 'ask.offered':
        return this.connection.offered(event.rpcId)
      case 'ask.left':
        return this.connection.left(event.rpcId)
    }
  }
}

const expectedState = (snapshot: Snapshot) =>
  snapshot.status === 'done'
    ? 'ended'
    : snapshot.matches('online')
      ? 'online'
      : (OUTAGES.find((outage) => snapshot.matches(outage)) ?? 'connecting')

beforeEach(() => {
  vi.useFakeTimers()
})

afterEach(() => {
  vi.useRealTimers()
})

type Step = { event: ModelEvent; state: Snapshot }

/** Every step of `path` extended by each event its state accepts, `depth` times over. */
function extend(path: Step[], depth: number, replay: boolean): Step[][] {
  if (depth === 0) return [path]
  const last = path.at(-1)!.state
  return eventsFor(last, replay).flatMap((event) =>
    extend(
      [...path, { event, state: getNextSnapshot(consoleConnectionMachine, last, event as never) }],
      depth - 1,
      replay,
    ),
  )
}

/**
 * The paths driven. The connection's own (backoff, give-ups, restarts,
 * answers): every simple path, each of its prefixes extended by one more
 * event, so self-loops are driven too. Simple paths through the re-offer
 * bookkeeping as well would be too many: there, every state's shortest
 * path, each prefix extended by every two events.
 */
function modelPaths(replay: boolean): Step[][] {
  const model = new TestModel(consoleConnectionMachine as never, {
    events: ((snapshot: Snapshot) => eventsFor(snapshot, replay)) as never,
    serializeState: ((snapshot: Snapshot) => serializeState(snapshot, replay)) as never,
    serializeEvent: serializeEvent as never,
    input: timing,
  })
  const found = replay
    ? model.getShortestPaths()
    : [...model.getShortestPaths(), ...model.getSimplePaths()]
  const unique = new Map<string, Step[]>()
  for (const path of found) {
    path.steps.forEach((_, index) => {
      const prefix = path.steps.slice(0, index + 1) as unknown as Step[]
      for (const steps of extend(prefix, replay ? 2 : 1, replay)) {
        unique.set(steps.map((step) => serializeEvent(step.event)).join(' '), steps)
      }
    })
  }
  return [...unique.values()]
}

describe.each([
  ['the connection', false],
  ['the connection with re-offers', true],
] as const)('consoleConnectionMachine paths drive the page connection: %s', (_, replay) => {
  const paths = modelPaths(replay)

  it(`${paths.length} paths`, async () => {
    const seen = new Set<string>()
    for (const path of paths) {
      vi.setSystemTime(0)
      const world = new World()
      let previous: Snapshot | undefined
      for (const step of path) {
        const socketsBefore = world.sockets.length
        const reportsBefore = world.unoffered.length
        const sentBefore = world.sockets.map((socket) => socket.sent.length)
        if (previous !== undefined) await world.perform(step.event)
        const state = step.state
        seen.add(JSON.stringify(state.value))
        expect(world.connection.state).toBe(expectedState(state))
        if (previous === undefined) {
          expect(world.sockets).toHaveLength(1)
          previous = state
          continue
        }
        const entered =
          JSON.stringify(previous.value) !== JSON.stringify(state.value) &&
          (state.matches('connecting') ||
            OUTAGES.some((outage) => state.matches({ [outage]: 'trying' })))
        expect(world.sockets.length - socketsBefore).toBe(entered ? 1 : 0)
        // A frame goes out only while online; offline it is dropped, not kept.
        const resends = previous.matches('online') && step.event.type === 'send'
        const sent = world.sockets.flatMap((socket, index) =>
          socket.sent.slice(sentBefore[index] ?? 0),
        )
        expect(sent).toEqual(resends ? ['A'] : [])
        // The grace reports the asks shown before the reconnect and not offered again since.
        expect(world.unoffered.slice(reportsBefore)).toEqual(
          'grace' in step.event ? [previous.context.unoffered] : [],
        )
        if (state.status === 'done') {
          // The page says why, as the final state the machine ended in does.
          expect(world.endings).toEqual([state.output?.ended])
          // Ended for good: no timer is left, and however long the page stays open, no new socket.
          expect(vi.getTimerCount()).toBe(0)
          await vi.advanceTimersByTimeAsync(600_000)
          expect(world.sockets.length - socketsBefore).toBe(0)
        }
        previous = state
      }
      world.connection.stop()
    }
    // The first model's states leave out the asks shown, so none of its paths reaches a replay.
    expect([...seen].sort()).toEqual([
      '"connecting"',
      '"hostClosed"',
      '"hostUnreachable"',
      '{"online":"live"}',
      ...(replay ? ['{"online":"replaying"}'] : []),
      '{"reconnecting":"trying"}',
      '{"reconnecting":"waiting"}',
      '{"restarting":"trying"}',
      '{"restarting":"waiting"}',
    ])
  })
})
