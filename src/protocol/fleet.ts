import { createActor, fromPromise } from 'xstate'
import type { Actor } from 'xstate'
import { fleetMachine } from '../machines/index.js'
import type { FleetEvent, LeaseRead, UnwrittenEnding } from '../machines/index.js'
import { commitFailed, ended } from './effects.js'
import type { InspectionObserver } from './seam-api.js'
import type { AskStore } from './store/types.js'

/** A seam's {@link fleetMachine}, running on its store. */
export type FleetActor = Actor<typeof fleetMachine>

/** What a seam's fleet needs. */
export interface FleetOptions {
  store: AskStore
  seamId: string
  durable: boolean
  inspect?: InspectionObserver | undefined
  /** Reads the store's pending asks again; rejects when a read failed, to be tried at the next beat. */
  resync(): Promise<void>
}

type LeaseWrite = { providerActive: boolean; expiresAt: number }

/** A store call whose failure is only a missed beat: the next one tries again. */
const quietly = async (call: () => Promise<unknown>): Promise<void> => {
  try {
    await call()
  } catch {
    // The fleet's calls are retried on their own schedule.
  }
}

/** Creates a seam's fleet actor (not yet started): its lease, its view of other seams, its sweeps. */
export function createFleet(options: FleetOptions): FleetActor {
  const { store, seamId } = options
  const write = ({ input }: { input: LeaseWrite }) =>
    quietly(() => store.heartbeat({ seamId, ...input }))
  const machine = fleetMachine.provide({
    actors: {
      writeLease: fromPromise<void, LeaseWrite>(write),
      leaveLease: fromPromise<void, LeaseWrite>(write),
      renewLease: fromPromise<void, LeaseWrite>(async ({ input }) => {
        const now = Date.now()
        await Promise.all([
          write({ input }),
          quietly(() => store.endOrphans(now)),
          quietly(() => store.expireOverdue(now)),
        ])
      }),
      readLeases: fromPromise<LeaseRead>(async () => {
        const others = (await store.leases(Date.now())).filter((each) => each.seamId !== seamId)
        let nextLapse: number | undefined
        for (const each of others) {
          if (
            Number.isFinite(each.expiresAt) &&
            (nextLapse === undefined || each.expiresAt < nextLapse)
          ) {
            nextLapse = each.expiresAt
          }
        }
        const read: LeaseRead = { providerElsewhere: others.some((each) => each.providerActive) }
        if (nextLapse !== undefined) read.nextLapse = nextLapse
        return read
      }),
      // Not quiet: a sweep that failed is tried again a beat later.
      sweepOverdue: fromPromise<number, { now: number }>(async ({ input }) => {
        await store.expireOverdue(input.now)
        return input.now
      }),
      endOrphans: fromPromise(() => quietly(() => store.endOrphans(Date.now()))),
      releaseLease: fromPromise(() => quietly(() => store.release(seamId))),
      writeEndings: fromPromise<string[], UnwrittenEnding[]>(({ input }) =>
        writeEndings(store, input),
      ),
      resync: fromPromise(() => options.resync()),
    },
  })
  // A seam starts with no provider: registering one tells the fleet (`provider.changed`).
  const input = { durable: options.durable, providerHere: false }
  return createActor(
    machine,
    options.inspect === undefined ? { input } : { input, inspect: options.inspect },
  )
}

/**
 * Writes each ending in turn, only where the ask is still pending (the
 * store's conditional write), and resolves with the asks done with: each the
 * store answered for, and each whose row cannot be written (it does not
 * parse). The first write that fails otherwise stops the round: the store is
 * most likely still failing, and the rest wait for the next beat.
 */
export async function writeEndings(store: AskStore, endings: UnwrittenEnding[]): Promise<string[]> {
  const done: string[] = []
  for (const { askId, outcome } of endings) {
    try {
      await store.settle(askId, outcome, Date.now())
    } catch (error: unknown) {
      if (!commitFailed(error).lasting) break
    }
    done.push(askId)
  }
  return done
}

/** Sends the fleet an event while it runs. */
export function tellFleet(fleet: FleetActor, event: FleetEvent): void {
  if (fleet.getSnapshot().status === 'active') fleet.send(event)
}

/** Stops the seam's part in the fleet (its lease released); resolves once it has. */
export function stopFleet(fleet: FleetActor): Promise<void> {
  const stopped = ended(fleet)
  tellFleet(fleet, { type: 'fleet.stop' })
  return stopped
}
