import type { AskStore } from '../../src/protocol/index.js'

/**
 * How a write to the store goes wrong: it never reaches the store (`fail`,
 * a store locked past its busy timeout, a connection refused), or it
 * commits and its reply is lost (`lose`, a connection dropped after the
 * commit). A read that fails (`read`) changes nothing.
 */
export type FaultKind = 'fail' | 'lose' | 'read'

/** One fault a seam's call met: which call, on which ask. */
export interface MetFault {
  kind: FaultKind
  call: 'admit' | 'settle' | 'vote' | 'pending' | 'get'
  askId: string | undefined
  /** The seam whose call met it, when it called through {@link FaultyStore.viewOf}. */
  seam?: number
}

/** A store the seams of a run use, whose next write or read fails when armed. */
export interface FaultyStore {
  /** What the seams are given; the run's own reads go to the store underneath. */
  readonly store: AskStore
  /** The same store for seam `seam`: the faults its calls meet name it. */
  viewOf(seam: number): AskStore
  /** The next admission (`admit`), or the next settlement or vote (`write`), or read, fails as `kind` says. */
  arm(kind: FaultKind, of?: 'admit' | 'write'): void
  /** Takes the fault armed for an admission back, if no admission met it. */
  disarmAdmission(): void
  /** Every fault met so far, oldest first. */
  readonly met: readonly MetFault[]
}

const lost = () => new Error('the connection to the store was lost')

/** Wraps `inner` so that one armed fault at a time meets the next call of its kind. */
export function faultyStore(inner: AskStore): FaultyStore {
  const met: MetFault[] = []
  let admission: FaultKind | undefined
  let write: FaultKind | undefined
  let read = false
  const takeWrite = () => {
    const kind = write
    write = undefined
    return kind
  }
  const takeRead = () => {
    const kind = read ? ('read' as const) : undefined
    read = false
    return kind
  }

  /** `inner` with one armed fault at a time meeting the next call of its kind, noted as `seam`'s. */
  const wrap = (seam: number | undefined): AskStore => {
    const store = Object.create(inner) as AskStore
    const through = async <T>(
      kind: FaultKind | undefined,
      call: MetFault['call'],
      askId: string | undefined,
      run: () => Promise<T>,
    ): Promise<T> => {
      if (kind === undefined) return run()
      met.push(seam === undefined ? { kind, call, askId } : { kind, call, askId, seam })
      if (kind === 'lose') await run()
      throw lost()
    }
    store.admit = (ask) => {
      const kind = admission
      admission = undefined
      return through(kind, 'admit', ask.askId, () => inner.admit(ask))
    }
    store.settle = (askId, outcome, settledAt) =>
      through(takeWrite(), 'settle', askId, () => inner.settle(askId, outcome, settledAt))
    store.vote = (askId, vote) => through(takeWrite(), 'vote', askId, () => inner.vote(askId, vote))
    store.pending = () => through(takeRead(), 'pending', undefined, () => inner.pending())
    store.get = (askId) => through(takeRead(), 'get', askId, () => inner.get(askId))
    return store
  }

  return {
    store: wrap(undefined),
    viewOf: wrap,
    met,
    arm(kind, of = 'write') {
      if (kind === 'read') read = true
      else if (of === 'admit') admission = kind
      else write = kind
    },
    disarmAdmission() {
      admission = undefined
    },
  }
}

/** One try to settle an ask: the outcome's code, or `answered`/`cancelled`, and when. */
export interface SettleTry {
  status: string
  at: number
}

/**
 * Wraps `inner` so that every settlement fails while `down` is set (a
 * store locked past its busy timeout), and logs every try, failed or not.
 */
export function storeThatGoesDown(inner: AskStore): {
  store: AskStore
  tries: readonly SettleTry[]
  down: boolean
} {
  const tries: SettleTry[] = []
  const store = Object.create(inner) as AskStore
  const control = { store, tries, down: true }
  store.settle = (askId, outcome, settledAt) => {
    const status = outcome.status === 'rejected' ? outcome.error.code : outcome.status
    tries.push({ status, at: Date.now() })
    return control.down
      ? Promise.reject(new Error('database is locked'))
      : inner.settle(askId, outcome, settledAt)
  }
  return control
}
