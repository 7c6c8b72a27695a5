import { assertEvent, assign, emit, enqueueActions, fromPromise, raise, setup } from 'xstate'
import type { UnwrittenEnding } from './ask.context.js'
import { clampDelay, delayUntil } from './time.js'

/** How often a seam on a durable store renews its lease and sweeps the store. */
export const HEARTBEAT_MS = 5_000
/** How long a lease lasts unrenewed: a seam silent this long counts as dead. */
export const LEASE_MS = 15_000
/**
 * How many unwritten endings a seam keeps to write again; past it the oldest
 * is dropped, and its row ends as an orphan once the seam's lease goes.
 */
export const MAX_UNWRITTEN = 1_000

/** What a seam's fleet starts from. */
export interface FleetInput {
  /** Whether the store outlives the process: only there a lease can lapse, so only there it is renewed. */
  durable: boolean
  /** Whether the seam has an active provider as it starts. */
  providerHere: boolean
}

/** A seam's knowledge of the fleet sharing its store: data only. */
export interface FleetContext {
  durable: boolean
  providerHere: boolean
  /** The lease does not say what the seam's provider slot says: it is written again. */
  leaseStale: boolean
  /** Whether another live seam sharing the store has an active provider. */
  providerElsewhere: boolean
  /** Whether the leases have been read once (or could not be). */
  known: boolean
  /** When the earliest deadline of an ask no timer of this seam watches falls, if any. */
  sweepAt: number | undefined
  /** When the earliest lapsing lease of another seam lapses (a store nothing outlives: a dropped seam's). */
  orphanAt: number | undefined
  /** This seam's asks whose ending is still to be written, oldest first. */
  unwritten: UnwrittenEnding[]
}

/** What one read of the leases found. */
export interface LeaseRead {
  providerElsewhere: boolean
  /** The earliest finite expiry among the other seams' leases. */
  nextLapse?: number
}

/** What the fleet hears from its seam. */
export type FleetEvent =
  /** The seam's provider slot changed: the lease says so at once. */
  | { type: 'provider.changed'; active: boolean }
  /** The store's feed says leases changed: they are read again. */
  | { type: 'leases.changed' }
  /** The earliest deadline among asks the seam runs no timer for; `undefined`: none any more. */
  | { type: 'deadline.watch'; deadline: number | undefined }
  /** The seam closes: the lease is removed. */
  | { type: 'fleet.stop' }
  /** The seam is dropped as a killed process would be: its lease is left to lapse. */
  | { type: 'fleet.crash' }
  /** An ask of this seam ended with its ending not written: it is written at the next beats until the store takes it. */
  | ({ type: 'ending.unwritten' } & UnwrittenEnding)
  /** The store's feed may have missed changes: the pending asks are read again. */
  | { type: 'feed.resync' }
  /** Raised by the fleet itself once a read of the leases is recorded. */
  | { type: 'leases.read' }

/** What the fleet tells its seam. */
export type FleetEmitted =
  /** The first lease write settled: asks may be admitted (an orphan sweep would end one with no lease). */
  | { type: 'fleet.ready' }
  /**
   * What the leases say changed: the first read (`first`: until then nothing
   * is known of the fleet), or another seam's provider came or went.
   */
  | { type: 'fleet.read'; providerElsewhere: boolean; first: boolean }
  /**
   * A sweep for overdue asks ran: every ask overdue when it began (`at`) is
   * ended in the store, heard or not, so the seam says which later deadline
   * to watch next.
   */
  | { type: 'fleet.swept'; at: number }

/** The lease a seam writes: whether its provider is active, and until when. */
export type LeaseWrite = { providerActive: boolean; expiresAt: number }

const idle = fromPromise<void, LeaseWrite>(async () => undefined)

/**
 * A seam's part in the fleet sharing its store (DESIGN §10), with its time
 * as named delays: its lease (renewed every {@link HEARTBEAT_MS} on a durable
 * store, where each renewal also ends orphans and overdue asks), what it
 * knows of the other seams' providers, a sweep at the earliest deadline no
 * ask timer of its own watches, and, on a store nothing outlives, the end of
 * a dropped seam's orphans when its lease lapses.
 *
 * The store calls are actors the seam provides (`writeLease`, `readLeases`,
 * `renewLease`, `sweepOverdue`, `endOrphans`, `releaseLease`,
 * `leaveLease`, `writeEndings`, `resync`); each is quiet (a failed call is
 * simply tried again later).
 */
export const fleetMachine = /* @__PURE__ */ setup({
  types: {
    context: {} as FleetContext,
    events: {} as FleetEvent,
    input: {} as FleetInput,
    emitted: {} as FleetEmitted,
  },
  actors: {
    writeLease: idle,
    renewLease: idle,
    readLeases: fromPromise<LeaseRead>(async () => ({ providerElsewhere: false })),
    sweepOverdue: fromPromise<number, { now: number }>(async ({ input }) => input.now),
    endOrphans: fromPromise<void>(async () => undefined),
    releaseLease: fromPromise<void>(async () => undefined),
    leaveLease: idle,
    writeEndings: fromPromise<string[], UnwrittenEnding[]>(async () => []),
    resync: fromPromise<void>(async () => undefined),
  },
  guards: {
    isDurable: ({ context }) => context.durable,
    isLeaseStale: ({ context }) => context.leaseStale,
    hasSweepDue: ({ context }) => context.sweepAt !== undefined,
    hasOrphansDue: ({ context }) => context.orphanAt !== undefined,
    hasUnwritten: ({ context }) => context.unwritten.length > 0,
  },
  delays: {
    heartbeat: clampDelay(HEARTBEAT_MS),
    sweepDue: ({ context }) => delayUntil(context.sweepAt ?? 0),
    orphansDue: ({ context }) => delayUntil(context.orphanAt ?? 0),
  },
  actions: {
    recordProvider: assign(({ event }) => {
      assertEvent(event, 'provider.changed')
      return { providerHere: event.active, leaseStale: true }
    }),
    markLeaseWritten: assign({ leaseStale: false }),
    watchDeadline: assign(({ context, event }) => {
      assertEvent(event, 'deadline.watch')
      const { deadline } = event
      if (deadline === undefined) return { sweepAt: undefined }
      return {
        sweepAt: context.sweepAt === undefined ? deadline : Math.min(context.sweepAt, deadline),
      }
    }),
    clearSweep: assign({ sweepAt: undefined }),
    clearOrphans: assign({ orphanAt: undefined }),
    keepUnwritten: assign(({ context, event }) => {
      assertEvent(event, 'ending.unwritten')
      const { askId, outcome } = event
      return { unwritten: [...context.unwritten, { askId, outcome }].slice(-MAX_UNWRITTEN) }
    }),
    dropWritten: assign(({ context }, written: string[]) => ({
      unwritten: context.unwritten.filter(({ askId }) => !written.includes(askId)),
    })),
    recordLeases: assign(({ context }, read: LeaseRead) => ({
      providerElsewhere: read.providerElsewhere,
      known: true,
      orphanAt: context.durable ? undefined : read.nextLapse,
    })),
    markKnown: assign({ known: true }),
    announceReady: emit({ type: 'fleet.ready' as const }),
    // Before the read is recorded: it tells the seam only what changed.
    announceRead: enqueueActions(({ context, enqueue }, read: LeaseRead | undefined) => {
      const providerElsewhere = read?.providerElsewhere ?? context.providerElsewhere
      if (context.known && providerElsewhere === context.providerElsewhere) return
      enqueue.emit({ type: 'fleet.read', providerElsewhere, first: !context.known })
    }),
    announceSweep: emit((_, at: number) => ({ type: 'fleet.swept' as const, at })),
    readAgain: raise({ type: 'leases.changed' as const }),
    noteRead: raise({ type: 'leases.read' as const }),
  },
}).createMachine({
  id: 'fleet',
  context: ({ input }) => ({
    durable: input.durable,
    providerHere: input.providerHere,
    leaseStale: false,
    providerElsewhere: false,
    known: false,
    sweepAt: undefined,
    orphanAt: undefined,
    unwritten: [],
  }),
  initial: 'starting',
  on: {
    'provider.changed': { actions: 'recordProvider' },
    'deadline.watch': { actions: 'watchDeadline' },
    'ending.unwritten': { actions: 'keepUnwritten' },
    'fleet.stop': '.releasing',
    'fleet.crash': [{ guard: 'isDurable', target: '.stopped' }, { target: '.crashed' }],
  },
  states: {
    starting: {
      invoke: {
        src: 'writeLease',
        input: ({ context }) => leaseOf(context),
        onDone: { target: 'firstRead', actions: 'announceReady' },
        onError: { target: 'firstRead', actions: 'announceReady' },
      },
    },
    firstRead: {
      invoke: {
        src: 'readLeases',
        onDone: {
          target: 'running',
          actions: [
            { type: 'announceRead', params: ({ event }) => event.output },
            { type: 'recordLeases', params: ({ event }) => event.output },
          ],
        },
        onError: {
          target: 'running',
          actions: [{ type: 'announceRead', params: undefined }, 'markKnown'],
        },
      },
    },
    running: {
      type: 'parallel',
      states: {
        lease: {
          initial: 'deciding',
          states: {
            deciding: {
              always: [
                { guard: 'isLeaseStale', target: 'writing' },
                { guard: 'isDurable', target: 'resting' },
                { target: 'dormant' },
              ],
            },
            // A store nothing outlives: a lease there never lapses, so it is only rewritten.
            dormant: {
              on: { 'provider.changed': { target: 'writing', actions: 'recordProvider' } },
            },
            resting: {
              after: { heartbeat: 'renewing' },
              on: { 'provider.changed': { target: 'writing', actions: 'recordProvider' } },
            },
            renewing: {
              invoke: {
                src: 'renewLease',
                input: ({ context }) => leaseOf(context),
                onDone: { target: 'deciding', actions: 'readAgain' },
                onError: { target: 'deciding', actions: 'readAgain' },
              },
            },
            writing: {
              entry: 'markLeaseWritten',
              invoke: {
                src: 'writeLease',
                input: ({ context }) => leaseOf(context),
                onDone: 'deciding',
                onError: 'deciding',
              },
            },
          },
        },
        leases: {
          initial: 'idle',
          states: {
            idle: { on: { 'leases.changed': 'reading' } },
            reading: {
              invoke: {
                src: 'readLeases',
                onDone: {
                  target: 'idle',
                  actions: [
                    { type: 'announceRead', params: ({ event }) => event.output },
                    { type: 'recordLeases', params: ({ event }) => event.output },
                    'noteRead',
                  ],
                },
                onError: 'idle',
              },
              // A read already under way may have missed the change: start it again.
              on: { 'leases.changed': { target: 'reading', reenter: true } },
            },
          },
        },
        sweep: {
          initial: 'idle',
          states: {
            idle: {
              always: { guard: 'hasSweepDue', target: 'armed' },
            },
            armed: {
              after: { sweepDue: 'sweeping' },
              on: {
                'deadline.watch': { target: 'checking', actions: 'watchDeadline' },
              },
            },
            checking: { always: [{ guard: 'hasSweepDue', target: 'armed' }, { target: 'idle' }] },
            sweeping: {
              entry: 'clearSweep',
              invoke: {
                src: 'sweepOverdue',
                input: () => ({ now: Date.now() }),
                onDone: {
                  target: 'idle',
                  actions: { type: 'announceSweep', params: ({ event }) => event.output },
                },
                onError: 'failed',
              },
            },
            // Tried again a beat later, not at once: a store that keeps failing is not hammered.
            failed: { after: { heartbeat: 'sweeping' } },
          },
        },
        orphans: {
          initial: 'checking',
          states: {
            checking: { always: [{ guard: 'hasOrphansDue', target: 'armed' }, { target: 'idle' }] },
            idle: { on: { 'leases.read': 'checking' } },
            armed: {
              after: { orphansDue: 'ending' },
              on: { 'leases.read': 'checking' },
            },
            ending: {
              entry: 'clearOrphans',
              invoke: {
                src: 'endOrphans',
                onDone: { target: 'idle', actions: 'readAgain' },
                onError: { target: 'idle', actions: 'readAgain' },
              },
            },
          },
        },
        // Each beat writes the endings left unwritten, oldest first, until one write fails.
        endings: {
          initial: 'idle',
          states: {
            idle: { always: { guard: 'hasUnwritten', target: 'resting' } },
            resting: { after: { heartbeat: 'writing' } },
            writing: {
              invoke: {
                src: 'writeEndings',
                input: ({ context }) => context.unwritten,
                onDone: {
                  target: 'idle',
                  actions: { type: 'dropWritten', params: ({ event }) => event.output },
                },
                onError: 'idle',
              },
            },
          },
        },
        // The store's pending asks, read once the fleet is known and again whenever the feed may
        // have missed changes; a read that failed is owed and tried again at the next beat.
        feed: {
          initial: 'reading',
          states: {
            reading: {
              invoke: { src: 'resync', onDone: 'synced', onError: 'owed' },
              // A read already under way may have missed the change: start it again.
              on: { 'feed.resync': { target: 'reading', reenter: true } },
            },
            synced: { on: { 'feed.resync': 'reading' } },
            owed: { after: { heartbeat: 'reading' }, on: { 'feed.resync': 'reading' } },
          },
        },
      },
    },
    // Endings still unwritten are left: once the lease is gone their rows end as orphans.
    releasing: {
      invoke: { src: 'releaseLease', onDone: 'stopped', onError: 'stopped' },
    },
    crashed: {
      // A killed process's last lease stays until it lapses; on a store nothing outlives it
      // would never lapse, so the drop leaves one that does, as the last renewal would.
      invoke: {
        src: 'leaveLease',
        input: ({ context }) => ({
          providerActive: context.providerHere,
          expiresAt: Date.now() + LEASE_MS,
        }),
        onDone: 'stopped',
        onError: 'stopped',
      },
    },
    stopped: { type: 'final' },
  },
})

function leaseOf(context: FleetContext): LeaseWrite {
  return {
    providerActive: context.providerHere,
    expiresAt: context.durable ? Date.now() + LEASE_MS : Infinity,
  }
}
