/**
 * The soak's processes: four askers and two answerers on one store, one of
 * them SIGKILLed every one to three seconds and started again; on SQLite, a
 * process that now and then holds the write lock past the store's busy
 * timeout. Runs until every asker has worked through its keys, then drains:
 * waits until no row is pending, or until every deadline has passed.
 */
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { startChild } from '../../test/support/processes.js'
import type { Child } from '../../test/support/processes.js'
import type { SoakDatabase } from './database.js'
import { LONG_TIMEOUT_MS, readLog } from './plan.js'
import type { AnswererOptions, AskerOptions } from './plan.js'

const CHILD = fileURLToPath(new URL('./child.ts', import.meta.url))
/** The shared test helper: its `lock` mode holds SQLite's write lock until told `release`. */
const SEAM_PROCESS = fileURLToPath(new URL('../../test/support/seam-process.ts', import.meta.url))
const ASKERS = 4
const ANSWERERS = 2
/** Time past the last deadline for a live seam's sweep to end an overdue ask. */
const SWEEP_GRACE_MS = 10_000

export interface FleetOptions {
  dialect: 'postgres' | 'sqlite'
  location: string
  asks: number
  /** A directory for the askers' logs. */
  logs: string
  database: SoakDatabase
  concurrency: number
  busyTimeoutMs: number
  timeLimitMs: number
}

export interface FleetReport {
  kills: { asker: number; answerer: number }
  lockHolds: number
  durationMs: number
  /** From the start until the last asker finished (or the time limit). */
  askingMs: number
  /** Processes that exited without being killed, and how. */
  crashes: string[]
  logs: string[]
}

interface Member {
  role: 'asker' | 'answerer'
  child: Child
  finished: boolean
  /** Starts its process again. */
  start(): void
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
const between = (low: number, high: number) => low + Math.random() * (high - low)

export async function runFleet(options: FleetOptions): Promise<FleetReport> {
  const began = Date.now()
  const cleanups: Array<() => Promise<void>> = []
  const track = (cleanup: () => Promise<void>) => cleanups.push(cleanup)
  const { dialect, location } = options
  const logs: string[] = []
  const members: Member[] = []
  let finishedAskers = 0
  let allFinished: () => void = () => undefined
  const finished = new Promise<void>((resolve) => (allFinished = resolve))

  let stopping = false
  const killed = new WeakSet<Child>()
  const crashes: string[] = []
  /**
   * A member whose process `spawn` starts, and starts again after every kill.
   * A process that exits on its own (an asker's clean exit once its keys are
   * done aside) crashed: counted, and started again.
   */
  const enlist = (role: Member['role'], name: string, spawn: () => Child): Member => {
    const begin = (): Child => {
      const child = spawn()
      void child.exited.then((code) => {
        if (stopping || killed.has(child) || (role === 'asker' && code === 0)) return
        crashes.push(`${name} exited with ${code ?? child.process.signalCode}`)
        console.log(
          `[soak] ${name} exited on its own (${code ?? child.process.signalCode}): started again`,
        )
        member.start()
      })
      return child
    }
    const member: Member = {
      role,
      finished: false,
      child: begin(),
      start() {
        member.child = begin()
      },
    }
    members.push(member)
    return member
  }

  for (let asker = 0; asker < ASKERS; asker += 1) {
    const log = join(options.logs, `asker-${asker}.jsonl`)
    logs.push(log)
    const askerOptions: AskerOptions = {
      asker,
      askers: ASKERS,
      total: options.asks,
      concurrency: options.concurrency,
      log,
      busyTimeoutMs: options.busyTimeoutMs,
    }
    const member = enlist('asker', `asker-${asker}`, () => {
      const child = startChild(
        CHILD,
        ['asker', dialect, location, JSON.stringify(askerOptions)],
        track,
      )
      child
        .line((line) => line.includes('"finished"'))
        .then(
          () => {
            member.finished = true
            finishedAskers += 1
            if (finishedAskers === ASKERS) allFinished()
          },
          () => undefined, // killed first: started again
        )
      return child
    })
  }
  for (let answerer = 0; answerer < ANSWERERS; answerer += 1) {
    const answererOptions: AnswererOptions = {
      name: `answerer-${answerer}`,
      busyTimeoutMs: options.busyTimeoutMs,
    }
    enlist('answerer', answererOptions.name, () =>
      startChild(CHILD, ['answerer', dialect, location, JSON.stringify(answererOptions)], track),
    )
  }

  const kills = { asker: 0, answerer: 0 }
  const killing = (async () => {
    while (!stopping) {
      await sleep(between(1_000, 3_000))
      const live = members.filter((member) => !member.finished)
      const victim = live[Math.floor(Math.random() * live.length)]
      if (stopping || victim === undefined) break
      killed.add(victim.child)
      await victim.child.kill()
      if (victim.finished) continue // it finished just before the signal
      kills[victim.role] += 1
      victim.start()
    }
  })()

  let lockHolds = 0
  const locking = (async () => {
    if (dialect !== 'sqlite') return
    while (!stopping) {
      await sleep(between(3_000, 6_000))
      if (stopping) break
      const holder = startChild(SEAM_PROCESS, ['sqlite', location, 'lock'], track)
      try {
        await holder.line((line) => line.includes('"locked"'))
        await sleep(options.busyTimeoutMs + between(200, 1_000))
        holder.send('release')
        await holder.line((line) => line.includes('"released"'))
        lockHolds += 1
      } catch {
        // It could not take the lock within its own busy timeout: next time.
      }
      await holder.kill()
    }
  })()

  const progress = setInterval(() => {
    // From the logs, not the processes: a restarted asker has said nothing yet.
    const done = new Set(
      logs.flatMap((log) =>
        readLog(log)
          .filter((line) => line.final)
          .map((line) => line.key),
      ),
    )
    console.log(
      `[soak] ${((Date.now() - began) / 1000).toFixed(0)} s: ${done.size}/${options.asks} keys done, ` +
        `kills ${kills.asker} askers ${kills.answerer} answerers, lock holds ${lockHolds}`,
    )
  }, 10_000)

  const timedOut = await Promise.race([
    finished.then(() => false),
    sleep(options.timeLimitMs).then(() => true),
  ])
  const askingMs = Date.now() - began
  if (timedOut) console.log('[soak] time limit reached before every asker finished')
  stopping = true
  await Promise.all([killing, locking])

  // Drained: nothing pending, or every deadline (the latest a minute after the last ask) past.
  const drainUntil = Date.now() + LONG_TIMEOUT_MS + SWEEP_GRACE_MS
  while (Date.now() < drainUntil && (await options.database.pendingCount()) > 0) {
    await sleep(500)
  }
  clearInterval(progress)
  await Promise.all(cleanups.map((cleanup) => cleanup()))
  return { kills, lockHolds, durationMs: Date.now() - began, askingMs, logs, crashes }
}
