import { assign, fromPromise, setup } from 'xstate'
import { clampDelay } from '../../machines/index.js'
import type { AskRow } from './rows.js'

/**
 * Where the backstop poll stands. Each field is undefined until the first
 * poll of a start has looked.
 */
export interface BackstopStanding {
  /** The highest revision the last poll saw. */
  seenLast?: number
  /** The same, one poll earlier: the next poll reads the rows above it. */
  seenBeforeLast?: number
  /** The leases as the last poll saw them. */
  leases?: string | null
}

/** What one poll found, and where it leaves the poll standing. */
export interface BackstopPollOutput {
  standing: BackstopStanding
  /**
   * `baseline`: the poll only learned where the revisions stand. `rows`:
   * the rows whose revision is above `floor`. `overflow`: too many changed
   * to read out; the watchers must read the store whole.
   */
  found:
    { kind: 'baseline' } | { kind: 'rows'; rows: AskRow[]; floor: number } | { kind: 'overflow' }
  /** The leases moved since the last poll's look (never on a start's first look). */
  leasesChanged: boolean
}

/** What the poll hears from its feed. */
export type BackstopEvent = { type: 'start' } | { type: 'stop' }

/** The backstop poll as data: its interval, and where it stands. */
export interface BackstopContext {
  pollIntervalMs: number
  standing: BackstopStanding
}

/**
 * The Postgres store's slow poll behind its notifications:
 *
 * - `stopped`: no poll; `start` waits for the first. Where the poll stood
 *   is forgotten on entry: the next start looks afresh.
 * - `waiting`: waits `pollInterval`, then polls.
 * - `polling`: the `poll` actor (provided by the feed) checks the LISTEN
 *   connection is alive and reads the changed rows and the leases from
 *   where the poll stands; when it is done, the poll stands where it says
 *   and the feed tells what it found (`tell`), and a poll that fails is
 *   reported (`reportFailure`). Either way the next one waits its interval.
 *
 * `stop` while polling leaves the read unheard: nothing it finds is told,
 * and it moves nothing. `start` while running does nothing.
 */
export const backstopMachine = /* @__PURE__ */ setup({
  types: {
    context: {} as BackstopContext,
    events: {} as BackstopEvent,
    input: {} as { pollIntervalMs: number },
  },
  actors: {
    poll: fromPromise<BackstopPollOutput, BackstopStanding>(() =>
      Promise.reject(new Error('backstopMachine: no poll actor provided')),
    ),
  },
  actions: {
    /** Tells the watchers what a poll found. */
    tell: (_, _output: BackstopPollOutput) => undefined,
    reportFailure: (_, _failed: { error: unknown }) => undefined,
    stand: assign((_, output: BackstopPollOutput) => ({ standing: output.standing })),
    forget: assign({ standing: {} }),
  },
  delays: {
    pollInterval: ({ context }) => clampDelay(context.pollIntervalMs),
  },
}).createMachine({
  id: 'backstop',
  context: ({ input }) => ({ pollIntervalMs: input.pollIntervalMs, standing: {} }),
  initial: 'stopped',
  states: {
    stopped: {
      entry: 'forget',
      on: { start: 'waiting' },
    },
    waiting: {
      after: { pollInterval: 'polling' },
      on: { stop: 'stopped' },
    },
    polling: {
      invoke: {
        src: 'poll',
        input: ({ context }) => context.standing,
        onDone: {
          target: 'waiting',
          actions: [
            { type: 'stand', params: ({ event }) => event.output },
            { type: 'tell', params: ({ event }) => event.output },
          ],
        },
        onError: {
          target: 'waiting',
          actions: { type: 'reportFailure', params: ({ event }) => ({ error: event.error }) },
        },
      },
      on: { stop: 'stopped' },
    },
  },
})
