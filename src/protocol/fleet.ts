import type { AskStore, SeamLease } from './store.js'

/** How often a seam on a durable store renews its lease and sweeps the store. */
export const HEARTBEAT_MS = 5_000
/** How long a lease lasts unrenewed: a seam silent this long counts as dead. */
export const LEASE_MS = 15_000

/**
 * A seam's part in the fleet sharing its store (DESIGN §10): its lease (is it
 * alive, has it a provider), what it knows of the other seams' providers, and
 * the timers that end other seams' overdue asks and a dead seam's orphans.
 */
export interface Fleet {
  /** Writes the first lease and reads the others. Never rejects. */
  start(): Promise<void>
  /** Resolves once the first lease write has settled: an ask is admitted only after it. */
  ready(): Promise<void>
  /** Writes the lease at once (a provider registered or was disposed). */
  beat(): void
  /** Rereads the leases (the change feed said they changed). */
  refresh(): void
  /** Whether another live seam sharing the store has an active provider. */
  providerElsewhere(): boolean
  /** Makes sure a sweep runs by `deadline` (an ask this seam runs no deadline timer for); `undefined`: none is needed any more. */
  watchDeadline(deadline: number | undefined): void
  /** Stops every timer; with `release`, removes the lease. Never rejects. */
  stop(release: boolean): Promise<void>
  /** Stops every timer and leaves the lease to lapse, as a killed process would. */
  crash(): void
}

/** What {@link createFleet} needs from its seam. */
export interface FleetOptions {
  store: AskStore
  seamId: string
  providerActive(): boolean
  onProvidersElsewhere(active: boolean): void
  /** The earliest deadline among the asks this seam watches without a timer of their own. */
  nextDeadline(): number | undefined
}

const quietly = (call: () => Promise<unknown>): Promise<void> => {
  try {
    return Promise.resolve(call()).then(
      () => undefined,
      () => undefined,
    )
  } catch {
    return Promise.resolve()
  }
}

/**
 * Creates a seam's {@link Fleet}. On a durable store the lease is renewed every
 * {@link HEARTBEAT_MS} and each tick also ends orphans and overdue asks. On a
 * process-local store (the memory store) no renewal timer runs: a lease there
 * never lapses by itself, so timers exist only for deadlines some seam must
 * sweep and for a dropped seam's lease.
 */
export function createFleet(options: FleetOptions): Fleet {
  const { store, seamId } = options
  const local = store.processLocal === true
  let elsewhere = false
  let stopped = false
  let readRound = 0
  let heartbeat: ReturnType<typeof setInterval> | undefined
  let sweepTimer: ReturnType<typeof setTimeout> | undefined
  let sweepAt: number | undefined
  let orphanTimer: ReturnType<typeof setTimeout> | undefined
  let orphanAt: number | undefined
  let first: Promise<void> | undefined

  const lease = (expiresAt: number): SeamLease => ({
    seamId,
    providerActive: options.providerActive(),
    expiresAt,
  })
  const write = () =>
    quietly(() => store.heartbeat(lease(local ? Infinity : Date.now() + LEASE_MS)))

  const read = async () => {
    const round = ++readRound
    let leases: SeamLease[]
    try {
      leases = await store.leases(Date.now())
    } catch {
      return
    }
    if (stopped || round !== readRound) return
    const others = leases.filter((each) => each.seamId !== seamId)
    const active = others.some((each) => each.providerActive)
    if (local) watchLeases(others)
    if (active !== elsewhere) {
      elsewhere = active
      options.onProvidersElsewhere(active)
    }
  }

  // A lease that can lapse on a local store is a dropped seam's: end its orphans when it does.
  const watchLeases = (others: SeamLease[]) => {
    let next: number | undefined
    for (const each of others) {
      if (Number.isFinite(each.expiresAt) && (next === undefined || each.expiresAt < next)) {
        next = each.expiresAt
      }
    }
    if (next === orphanAt) return
    clearTimeout(orphanTimer)
    orphanTimer = undefined
    orphanAt = next
    if (next === undefined) return
    orphanTimer = setTimeout(
      () => {
        orphanTimer = undefined
        orphanAt = undefined
        void quietly(() => store.endOrphans(Date.now())).then(read)
      },
      Math.max(0, next - Date.now()),
    )
  }

  const sweep = () => {
    sweepTimer = undefined
    sweepAt = undefined
    void quietly(() => store.expireOverdue(Date.now())).then(() => {
      if (!stopped) fleet.watchDeadline(options.nextDeadline())
    })
  }

  const tick = () => {
    const now = Date.now()
    void write()
    void read()
    void quietly(() => store.endOrphans(now))
    void quietly(() => store.expireOverdue(now))
  }

  const stopTimers = () => {
    stopped = true
    clearInterval(heartbeat)
    clearTimeout(sweepTimer)
    clearTimeout(orphanTimer)
    heartbeat = sweepTimer = orphanTimer = undefined
  }

  const fleet: Fleet = {
    start() {
      first = write()
      if (!local) {
        heartbeat = setInterval(tick, HEARTBEAT_MS)
        // A seam's renewals must not keep its process alive.
        ;(heartbeat as { unref?: () => void }).unref?.()
      }
      return first.then(read)
    },
    ready() {
      return first ?? Promise.resolve()
    },
    beat() {
      if (!stopped) void write()
    },
    refresh() {
      if (!stopped) void read()
    },
    providerElsewhere: () => elsewhere,
    watchDeadline(deadline) {
      if (deadline === undefined) {
        clearTimeout(sweepTimer)
        sweepTimer = sweepAt = undefined
        return
      }
      if (stopped) return
      if (sweepAt !== undefined && sweepAt <= deadline) return
      clearTimeout(sweepTimer)
      sweepAt = deadline
      sweepTimer = setTimeout(sweep, Math.max(0, deadline - Date.now()))
    },
    async stop(release) {
      stopTimers()
      if (release) await quietly(() => store.release(seamId))
    },
    crash() {
      stopTimers()
      // A killed process's last lease stays until it lapses; on a local store it would never
      // lapse, so the crash leaves one that does, as the last renewal before the kill would.
      if (local) void quietly(() => store.heartbeat(lease(Date.now() + LEASE_MS)))
    },
  }
  return fleet
}
