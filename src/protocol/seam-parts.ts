import type { Actor, InspectionEvent } from 'xstate'
import type { askMachine } from '../machines/index.js'
import type { InspectionObserver } from './seam-api.js'
import { CorruptRowError, parseAskRecord } from './store.js'
import type { AdmitResult } from './store.js'
import { MAX_TIMEOUT_MS, UserQuestionError } from '../vocabulary/index.js'
import type {
  Agent,
  AskUserQuestionAnswer,
  AskUserQuestionItem,
  PendingAsk,
} from '../vocabulary/index.js'

/*
 * The seam's bookkeeping (what it holds per ask and per caller) and the small
 * helpers that need none of its state.
 */

export type AskActor = Actor<typeof askMachine>

/** One caller waiting on an ask in this seam. */
export interface Caller {
  entry: Entry
  resolve(answer: AskUserQuestionAnswer): void
  reject(error: UserQuestionError): void
  /** The caller's signal, while the seam watches it. */
  signal: AbortSignal | undefined
}

/** An ask some caller of this seam waits on: one this seam admitted, or one it attached to by key. */
export interface Entry {
  askId: string
  questions: AskUserQuestionItem[]
  startedAt: number
  deadline: number | undefined
  agentId: string | undefined
  key: string | undefined
  agent: Agent | undefined
  /** Runs the ask's machine once admitted; absent while admitting, and for an ask another seam owns. */
  actor: AskActor | undefined
  admitting: boolean
  /** Usually one: an array costs a fifth of a `Set` per pending ask. */
  callers: Caller[]
  abortRequested: boolean
  abortCause: unknown
  /** The error of this seam's own proposal, once it took the presentation down (the caller gets the same one). */
  localError: UserQuestionError | undefined
  storeCause: unknown
  /** A settlement this seam writes directly (no actor) is in flight. */
  settling: boolean
  done: boolean
  onDone: (() => void) | undefined
}

export function checkDuration(
  name: string,
  value: number | undefined,
  allowInfinity: boolean,
): void {
  if (value === undefined) return
  const ok =
    typeof value === 'number' &&
    value >= 0 &&
    (Number.isFinite(value) ? value <= MAX_TIMEOUT_MS : allowInfinity && value === Infinity)
  if (!ok) {
    throw new TypeError(
      `createUserQuestions: ${name} must be a number of milliseconds from 0 to ${MAX_TIMEOUT_MS}${allowInfinity ? ' or Infinity' : ''}`,
    )
  }
}

export const storeFailed = (cause: unknown) =>
  new UserQuestionError('the ask store could not be read or written', 'STORE_FAILED', { cause })

/** Any throwable as a coded error: what `ask()` rejects with when something unplanned threw. */
export function coded(error: unknown): UserQuestionError {
  if (error instanceof UserQuestionError) return error
  return new UserQuestionError('the request could not be read', 'INVALID_REQUEST', {
    cause: error,
    details: { field: 'request' },
  })
}

/** A store call that may also throw synchronously, as a promise. */
export function attempt<T>(call: () => Promise<T>): Promise<T> {
  try {
    return Promise.resolve(call())
  } catch (error: unknown) {
    return Promise.reject(error as Error)
  }
}

export interface AskEndings {
  concluded(entry: Entry): void
  faulted(entry: Entry, fault: unknown): void
}

/**
 * Hears how an ask's actor ends. One small object per ask, where an observer
 * literal would hold two closures and the scope they close over.
 */
export class AskEnding {
  constructor(
    private readonly entry: Entry,
    private readonly endings: AskEndings,
  ) {}
  complete(): void {
    this.endings.concluded(this.entry)
  }
  error(fault: unknown): void {
    this.endings.faulted(this.entry, fault)
  }
}

export function pendingAsk(
  ask: Pick<Entry, 'askId' | 'questions' | 'startedAt'> & {
    agentId?: string | undefined
    deadline?: number | undefined
  },
  state: PendingAsk['state'],
): PendingAsk {
  const entry: PendingAsk = {
    askId: ask.askId,
    questions: ask.questions,
    state,
    startedAt: ask.startedAt,
  }
  if (ask.agentId !== undefined) entry.agentId = ask.agentId
  if (ask.deadline !== undefined) entry.deadline = ask.deadline
  return entry
}

/**
 * The caller's inspection observer, made unable to break an ask. XState calls
 * it inside sends and transitions, where a throw would fault the ask's actor
 * or the send of whoever told it something; the throw reaches the process on
 * a turn of its own instead, as a store watcher's does.
 */
export function guardInspection(observer: InspectionObserver): (event: InspectionEvent) => void {
  return (event) => {
    try {
      if (typeof observer === 'function') observer(event)
      else observer.next?.(event)
    } catch (error: unknown) {
      queueMicrotask(() => {
        throw error
      })
    }
  }
}

/**
 * A store's answer to an admission, read as untrusted (the store is a trust
 * boundary, DESIGN §10): a held ask is parsed like any row; anything else
 * throws, for the seam to answer `STORE_FAILED`.
 */
export function readAdmission(result: unknown): AdmitResult {
  const status = (result as { status?: unknown } | null | undefined)?.status
  // The seam reads nothing of an admitted record: it wrote it.
  if (status === 'admitted') return result as AdmitResult
  if (status === 'existing') {
    return { status, record: parseAskRecord((result as { record?: unknown }).record) }
  }
  throw new CorruptRowError('the store answered an admission with neither admitted nor existing')
}
