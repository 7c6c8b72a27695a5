import { createActor } from 'xstate'
import type { Actor, InspectionEvent, Observer } from 'xstate'
import { askMachine } from '../machines/index.js'
import type { AskInput, AskOutput } from '../machines/index.js'
import { seamMachine } from '../machines/index.js'
import { createAbortFanout } from './abort-fanout.js'
import { checkCaller } from './agents.js'
import { UserQuestionError } from '../vocabulary/index.js'
import type {
  Agent,
  AgentRegistry,
  AskUserQuestionAnswer,
  AskUserQuestionRequest,
  PendingAsk,
  UserQuestionProvider,
} from '../vocabulary/index.js'
import { MAX_TIMEOUT_MS, validateRequest } from '../vocabulary/index.js'

/** Receives XState inspection records from the seam and from every ask (e.g. Stately's inspector). */
export type InspectionObserver = Observer<InspectionEvent> | ((event: InspectionEvent) => void)

/** Options of {@link createUserQuestions}. */
export interface UserQuestionsOptions {
  /** Who may ask. Without it, any ask that names an `agent` is `CALLER_NOT_LIVE`. */
  agents?: AgentRegistry
  /**
   * Every ask must name its `agent`: one without is `CALLER_NOT_LIVE`, so a
   * subagent cannot reach the human by leaving `agent` out. @default false
   */
  requireAgent?: boolean
  /** Default deadline in milliseconds. @default undefined (wait for the human indefinitely) */
  timeoutMs?: number
  /** How long an ask waits for a provider when none is registered. @default 0 (`NO_PROVIDER` at once) */
  waitForProviderMs?: number
  /** How long a disposed provider's asks wait, same `askId`, for the next one. @default 0 (abort at once) */
  providerGraceMs?: number
  /** Passed to every actor: the seam's provider slot and each ask. */
  inspect?: InspectionObserver
}

/** The seam between tools that ask and the UI that answers. */
export interface UserQuestions {
  /** Makes `provider` the one active UI. Returns its disposer: idempotent and stale-safe. */
  registerProvider(provider: UserQuestionProvider): () => void
  /** Asks a batch; resolves with the canonical answer or rejects with a `UserQuestionError`. */
  ask(request: AskUserQuestionRequest): Promise<AskUserQuestionAnswer>
  /** The asks not yet settled, oldest first. */
  pending(): PendingAsk[]
  /** Rejects every pending ask with `SEAM_CLOSED`, then refuses new work. */
  close(): Promise<void>
}

type AskActor = Actor<typeof askMachine>

function checkDuration(name: string, value: number | undefined, allowInfinity: boolean): void {
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

/**
 * Creates the question seam: a thin adapter over `seamMachine` (the provider
 * slot) and one `askMachine` actor per ask. It admits requests, starts actors,
 * forwards the slot's announcements to the asks, and turns each ask's output
 * into a resolved answer or a rejected `UserQuestionError`.
 *
 * @example
 * ```ts
 * const seam = createUserQuestions({ timeoutMs: 60_000 })
 * seam.registerProvider({ ask: async ({ questions }) => ({ answers: questions.map(({ id }) => ({ id, selected: [] })) }) })
 * const { answers } = await seam.ask({ questions: [{ id: 'go', question: 'Deploy now?', options: [{ label: 'Yes' }, { label: 'No' }] }] })
 * ```
 */
export function createUserQuestions(options: UserQuestionsOptions = {}): UserQuestions {
  checkDuration('timeoutMs', options.timeoutMs, true)
  checkDuration('waitForProviderMs', options.waitForProviderMs, false)
  checkDuration('providerGraceMs', options.providerGraceMs, false)
  const { agents, inspect } = options
  const waitForProviderMs = options.waitForProviderMs ?? 0
  const providerGraceMs = options.providerGraceMs ?? 0
  const asks = new Map<string, AskActor>()
  const callerSignals = createAbortFanout()
  const prefix = Math.random().toString(36).slice(2, 8)
  let asked = 0
  let registrations = 0

  const seam = createActor(seamMachine, inspect === undefined ? {} : { inspect })
  // Announcements are rare (a provider arrives or leaves, the seam closes); each
  // reaches every pending ask, and the ask's own machine decides what it means.
  const forward = (event: { type: 'provider.available' | 'provider.disposed' | 'seam.closed' }) => {
    for (const actor of [...asks.values()]) actor.send(event as never)
  }
  seam.on('*', forward)
  seam.start()

  const closedError = () => new UserQuestionError('the question seam is closed', 'SEAM_CLOSED')

  return {
    registerProvider(provider) {
      if (typeof (provider as Partial<UserQuestionProvider> | null)?.ask !== 'function') {
        throw new TypeError('registerProvider: the provider must have an ask(request) function')
      }
      const registration = ++registrations
      const event = { type: 'provider.registered', provider, registration } as const
      const snapshot = seam.getSnapshot()
      if (!snapshot.can(event)) {
        throw snapshot.matches('closed')
          ? closedError()
          : new UserQuestionError(
              'another question provider is already active',
              'DUPLICATE_PROVIDER',
            )
      }
      seam.send(event)
      return () => seam.send({ type: 'provider.disposed', registration })
    },

    ask(request) {
      if (seam.getSnapshot().matches('closed')) return Promise.reject(closedError())
      let admitted
      try {
        const signal = (request as { signal?: { aborted?: unknown; reason?: unknown } } | null)
          ?.signal
        if (signal?.aborted === true) {
          throw new UserQuestionError(
            'the caller aborted the ask before it started',
            'ASK_ABORTED',
            {
              cause: signal.reason,
              details: { reason: 'caller-aborted' },
            },
          )
        }
        admitted = validateRequest(request, {
          checkCaller: (agent) => checkCaller(agents, agent, options),
        })
      } catch (error: unknown) {
        return Promise.reject(error)
      }
      const askId = `${prefix}-${++asked}`
      const startedAt = Date.now()
      const timeoutMs = admitted.timeoutMs ?? options.timeoutMs
      const provider = seam.getSnapshot().context.provider
      const input: AskInput = {
        askId,
        questions: admitted.questions,
        startedAt,
        waitForProviderMs,
        providerGraceMs,
        ...(timeoutMs === undefined || timeoutMs === Infinity
          ? {}
          : { deadline: startedAt + timeoutMs }),
        ...(admitted.agent === undefined ? {} : { agent: admitted.agent as Agent }),
        ...(provider === undefined ? {} : { provider }),
      }
      const actor = createActor(askMachine, inspect === undefined ? { input } : { input, inspect })
      const signal = admitted.signal
      const unwatch =
        signal === undefined
          ? undefined
          : callerSignals.watch(signal, (reason) => actor.send({ type: 'ask.aborted', reason }))
      return new Promise<AskUserQuestionAnswer>((resolve, reject) => {
        actor.subscribe({
          complete() {
            asks.delete(askId)
            unwatch?.()
            // Every final state of askMachine records its outcome.
            const output = actor.getSnapshot().output as AskOutput
            if (output.status === 'answered') resolve(output.answer)
            else reject(output.error)
          },
        })
        asks.set(askId, actor)
        actor.start()
      })
    },

    pending() {
      return [...asks.values()].map((actor) => {
        const { context } = actor.getSnapshot()
        const presenting = actor.getSnapshot().matches({ pending: 'presenting' })
        const entry: PendingAsk = {
          askId: context.askId,
          questions: context.questions,
          state: presenting ? 'presenting' : 'waiting-for-provider',
          startedAt: context.startedAt,
        }
        if (context.agent !== undefined) entry.agentId = context.agent.id
        if (context.deadline !== undefined) entry.deadline = context.deadline
        return entry
      })
    },

    async close() {
      seam.send({ type: 'seam.closed' })
    },
  }
}
