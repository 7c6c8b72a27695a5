import { getEventListeners } from 'node:events'
import { expect, vi } from 'vitest'
import { UserQuestionError, createUserQuestions } from '../../src/protocol/index.js'
import type {
  AskStore,
  AskUserQuestionAnswer,
  ProviderSettlement,
  UserQuestions,
} from '../../src/protocol/index.js'
import type { ProviderVerdict } from '../../src/machines/index.js'
import { isReplayedOutcome } from '../../src/vocabulary/index.js'
import type { AskErrorData, AskOutcome, AskUserQuestionItem } from '../../src/vocabulary/index.js'
import { createControllableProvider, track } from '../support/controllable-provider.js'
import type { ControllableProvider, ProviderCall } from '../support/controllable-provider.js'
import { holdingStore } from '../support/holding-store.js'
import type { HeldWrite, HoldingStore } from '../support/holding-store.js'
import { settle } from '../support/settle.js'
import {
  DEADLINE_MS,
  GRACE_MS,
  WAIT_MS,
  heldAskId,
  modelPolicy,
  questionsOf,
  retryBound,
} from './ask-model.js'
import type { ModelState, ModelStep, Scenario } from './ask-model.js'

/*
 * The implementation a model path drives: a seam (createUserQuestions) on a
 * real store, its provider controlled by the test, a second seam sharing the
 * store (another console, another process), fake timers, and a store wrapper
 * that holds the seam's admissions and commits until the path says how they
 * end. After every step, `check` compares what the caller, the providers and
 * the store show with the state the model says the ask is in.
 */

const CALLER_REASON = 'caller gave up'
const STORE_ERROR = 'disk I/O error'

/** The store as the other seam sees it: each change one turn of the event loop late, as another process hears it. */
function heardLater(inner: AskStore): AskStore {
  const store: AskStore = Object.create(inner) as AskStore
  store.watch = (listener) => inner.watch((change) => setImmediate(() => listener(change)))
  return store
}

/** One call of the seam's provider, with what its settlement promise did. */
interface Presentation {
  call: ProviderCall
  settlement: ReturnType<typeof track<ProviderSettlement>>
  /** The error the test rejected the call with, when it did. */
  rejection?: unknown
}

export class World {
  readonly inner: AskStore
  readonly holding: HoldingStore
  readonly seam: UserQuestions
  readonly console: UserQuestions
  readonly caller = new AbortController()
  readonly durable: boolean
  readonly questions: AskUserQuestionItem[]
  readonly presentations: Presentation[] = []
  asked: ReturnType<typeof track<AskUserQuestionAnswer>> | undefined
  /** The id the seam minted for the ask, and the other seam's ask it may follow. */
  ownAskId: string | undefined
  consoleAskId: string | undefined
  private provider: { provider: ControllableProvider; dispose: () => void } | undefined
  private disposeElsewhere: (() => void) | undefined
  private closing: Promise<void> | undefined
  private releaseRead: (() => void) | undefined
  private readonly providers: ControllableProvider[] = []

  constructor(
    readonly scenario: Scenario,
    makeStore: () => AskStore,
  ) {
    this.inner = makeStore()
    this.questions = questionsOf(scenario)
    this.durable = this.inner.processLocal !== true
    this.holding = holdingStore(this.inner, { admissions: true, reads: true })
    if (scenario.fleetUnknown === true) this.holdFirstRead()
    this.seam = createUserQuestions({
      store: this.holding.store,
      waitForProviderMs: scenario.wait ? WAIT_MS : 0,
      providerGraceMs: scenario.grace ? GRACE_MS : 0,
      ...(scenario.deadline ? { timeoutMs: DEADLINE_MS } : {}),
    })
    // The other seam's own ask, when there is one, waits for a provider longer than any path runs.
    this.console = createUserQuestions({
      store: heardLater(this.inner),
      waitForProviderMs: 10 * DEADLINE_MS,
    })
  }

  /** The seam's first read of the leases waits until the path lets the fleet be known. */
  private holdFirstRead() {
    const store = this.holding.store
    const read = store.leases.bind(store)
    let first = true
    store.leases = (now) => {
      if (!first) return read(now)
      first = false
      return new Promise((resolve, reject) => {
        this.releaseRead = () => {
          this.releaseRead = undefined
          read(now).then(resolve, reject)
        }
      })
    }
  }

  private register() {
    const provider = createControllableProvider()
    const asked = provider.ask.bind(provider)
    provider.ask = (request) => {
      const answer = asked(request)
      const call = provider.last()
      this.presentations.push({ call, settlement: track(request.settlement!) })
      return answer
    }
    this.providers.push(provider)
    this.provider = { provider, dispose: this.seam.registerProvider(provider) }
  }

  async start(): Promise<void> {
    if (this.scenario.providerHere) this.register()
    if (this.scenario.fleetUnknown !== true) await settle()
    if (this.scenario.follows === true) {
      void track(this.console.ask({ questions: this.questions, key: 'k' }))
      await settle()
      this.consoleAskId = this.console.pending()[0]?.askId
      expect(this.consoleAskId).toBeDefined()
    }
    this.asked = track(
      this.seam.ask({
        questions: this.questions,
        ...(this.scenario.policy === true ? modelPolicy : {}),
        signal: this.caller.signal,
        ...(this.scenario.key ? { key: 'k' } : {}),
      }),
    )
    if (this.scenario.fleetUnknown !== true) await settle()
    this.ownAskId = this.seam.pending()[0]?.askId
  }

  /** The id the store knows the ask by in `state`. */
  storeId(state: ModelState): string | undefined {
    return state.ask.context.askId === heldAskId ? this.consoleAskId : this.ownAskId
  }

  async perform(step: ModelStep, before: ModelState): Promise<void> {
    const storeId = this.storeId(before)!
    const current = this.presentations.at(-1)
    switch (step.type) {
      case 'ask.aborted':
        this.caller.abort(CALLER_REASON)
        break
      case 'seam.closed':
        this.closing = this.seam.close()
        break
      case 'ask.settled':
        await this.inner.settle(storeId, step.outcome, Date.now())
        break
      case 'providers.elsewhere':
        if (step.active)
          this.disposeElsewhere = this.console.registerProvider(createControllableProvider())
        else this.disposeElsewhere?.()
        await settle()
        this.releaseRead?.()
        break
      case 'provider.available':
        this.register()
        break
      case 'provider.disposed':
        this.provider?.dispose()
        break
      case 'admission.done':
        await this.takeHeld('admit').run()
        break
      case 'admission.lost':
        await this.takeHeld('admit').lose(new Error(STORE_ERROR))
        break
      case 'commit.lost':
        await this.takeHeld(writeOf(before), offeredBy(before)).lose(new Error(STORE_ERROR))
        break
      case 'commit.unheld':
        await this.takeHeld(writeOf(before), offeredBy(before)).run()
        break
      case 'admission.failed':
        this.takeHeld('admit').fail(new Error(STORE_ERROR))
        break
      case 'commit.done': {
        const held = this.takeHeld(writeOf(before), offeredBy(before))
        // Another writer's settlement reaches the store first.
        if (!step.won && before.stored === undefined) {
          await this.inner.settle(storeId, step.outcome, Date.now())
        }
        await held.run()
        break
      }
      case 'commit.failed':
        this.takeHeld(writeOf(before), offeredBy(before)).fail(new Error(STORE_ERROR))
        break
      case 'votes.read':
        await this.takeHeld('votes').run()
        break
      case 'vote.counted':
      case 'vote.already':
        await this.takeHeld('vote', offeredBy(before)).run()
        break
      case 'pause.elapsed':
        await vi.advanceTimersByTimeAsync(retryBound(before.presentation!.context.refusals))
        break
      case 'provider.answered':
        current!.call.resolve(step.answer)
        break
      case 'provider.failed': {
        const error =
          step.error.code === 'ASK_CANCELLED'
            ? new UserQuestionError(step.error.message, 'ASK_CANCELLED')
            : new Error('boom')
        current!.rejection = error
        current!.call.reject(error)
        break
      }
      case 'wait.elapsed':
        await vi.advanceTimersByTimeAsync(WAIT_MS)
        break
      case 'grace.elapsed':
        await vi.advanceTimersByTimeAsync(GRACE_MS)
        break
      case 'retry.elapsed':
        await vi.advanceTimersByTimeAsync(
          retryBound(
            before.ask.matches({ committing: 'waiting' })
              ? before.ask.context.commitAttempts
              : before.presentation!.context.attempts,
          ),
        )
        break
      case 'ask.deadline':
        await vi.advanceTimersByTimeAsync(DEADLINE_MS - Date.now())
        break
    }
    await settle()
  }

  /** The held write the step answers: the admission, or the settlement of `outcome`. */
  private takeHeld(kind: HeldWrite['kind'], outcome?: AskOutcome) {
    const { held } = this.holding
    // The newest of a kind: an older one is an orphan's, in flight for a presentation gone.
    const index = held.findLastIndex(
      (write) =>
        write.kind === kind &&
        (outcome === undefined || JSON.stringify(write.outcome) === JSON.stringify(outcome)),
    )
    expect(index, `a held ${kind}`).not.toBe(-1)
    return held.splice(index, 1)[0]!
  }

  /** What the caller, the providers and the store must show in `state`. */
  async check(state: ModelState): Promise<void> {
    const { ask, presentation } = state
    const active = ask.status === 'active'
    const storeId = this.storeId(state)

    // What is in flight between the seam and its store: exactly what the machines offered.
    const inFlight: { kind: string; outcome: AskOutcome | undefined }[] = []
    if (ask.matches('admitting')) inFlight.push({ kind: 'admit', outcome: undefined })
    if (ask.matches({ committing: 'writing' }) || ask.matches({ committing: 'lastWrite' })) {
      inFlight.push({ kind: 'settle', outcome: ask.context.proposal!.outcome })
    }
    if (presentation?.matches({ committing: 'writing' })) {
      inFlight.push({ kind: writeOf(state), outcome: presentation.context.proposal })
    }
    if (presentation?.matches('counting')) inFlight.push({ kind: 'votes', outcome: undefined })
    for (const { kind, outcome } of state.orphans) inFlight.push({ kind, outcome })
    const sorted = (writes: { kind: string; outcome: AskOutcome | undefined }[]) =>
      writes.map((write) => JSON.stringify(write)).sort()
    expect(sorted(this.holding.held.map(({ kind, outcome }) => ({ kind, outcome })))).toEqual(
      sorted(inFlight),
    )

    // The store holds what the model says it holds: for this ask, or for the one it follows.
    // The last admission, and none yet when the ask just left the one it followed (it asks anew).
    const left = state.steps.findLastIndex(
      (step) => step.type === 'ask.settled' && !isReplayedOutcome(step.outcome),
    )
    const admitted = state.steps.findLastIndex(
      (step) => step.type === 'admission.done' || step.type === 'admission.lost',
    )
    const admission = admitted > left ? state.steps[admitted] : undefined
    const heldKey = admission?.type === 'admission.done' && admission.existing
    const own = this.ownAskId === undefined ? undefined : await this.inner.get(this.ownAskId)
    if (admission === undefined || heldKey) expect(own).toBeUndefined()
    const subject =
      admission === undefined ? undefined : heldKey ? this.consoleAskId : this.ownAskId
    if (subject !== undefined) {
      const record = await this.inner.get(subject)
      if (state.stored === undefined) expect(record?.state).toBe('pending')
      else expect(record?.outcome).toEqual(state.stored)
    }

    // The caller, and the asks the seam lists: this one while it runs, and the other seam's
    // ask it follows, while that one is pending and this seam follows its store.
    const listeners = getEventListeners(this.caller.signal, 'abort').length
    const listed = this.seam.pending()
    const listedIds = new Set(listed.map((entry) => entry.askId))
    const expectedIds = new Set<string>()
    if (active) expectedIds.add(storeId ?? this.ownAskId!)
    if (this.consoleAskId !== undefined) {
      const held = await this.inner.get(this.consoleAskId)
      if (!state.closed && held?.state === 'pending') expectedIds.add(this.consoleAskId)
    }
    expect(listedIds).toEqual(expectedIds)
    if (active) {
      expect(this.asked!.settlement).toEqual({ status: 'pending' })
      expect(listeners).toBe(this.caller.signal.aborted ? 0 : 1)
      const entry = listed.find((each) => each.askId === (storeId ?? this.ownAskId))
      expect(entry?.state).toBe(pendingState(state))
      expect(entry?.deadline).toBe(ask.context.deadline)
    } else {
      expect(listeners).toBe(0)
      this.checkOutcome(state)
    }

    // The providers: one call per presentation the model opened, each told what its machine told.
    expect(this.presentations.length).toBe(state.presentations.length)
    for (const [index, record] of state.presentations.entries()) {
      const { call, settlement } = this.presentations[index]!
      expect(call.request.askId).toBe(this.ownAskId)
      expect(call.request.questions).toEqual(this.questions)
      expect(call.request.deadline).toBe(ask.context.deadline)
      // The count the store held when the presentation opened, then each count after it.
      expect(call.request.approvals?.given.map((each) => each.id) ?? []).toEqual(record.given)
      const signal = call.request.signal
      expect(signal.aborted).toBe(record.ended !== undefined)
      if (record.ended !== undefined) {
        const reason = signal.reason as UserQuestionError
        expect(reason).toBeInstanceOf(UserQuestionError)
        expect({ code: reason.code, message: reason.message, details: reason.details }).toEqual({
          code: record.ended.code,
          message: record.ended.message,
          details: record.ended.details,
        })
      }
      // A call told of its answer before the ask ended keeps what it was told.
      const told: ProviderVerdict | { status: 'refused'; error: AskErrorData } | undefined =
        record.told ??
        (record.ended === undefined ? undefined : { status: 'refused', error: record.ended })
      if (told === undefined) expect(settlement.settlement).toEqual({ status: 'pending' })
      else if (told.status === 'refused') {
        expect(settlement.settlement).toMatchObject({
          status: 'fulfilled',
          value: {
            status: 'refused',
            error: { code: told.error.code, message: told.error.message },
          },
        })
      } else {
        expect(settlement.settlement).toEqual({ status: 'fulfilled', value: told })
      }
    }

    if (!active && state.stored !== undefined && !state.closed) {
      // Nothing of the ask is left armed: its deadline, a wait, a grace, a retry, a sweep for it.
      expect(vi.getTimerCount()).toBe(this.idleTimers())
      expect(this.console.pending()).toEqual([])
    }
  }

  /** DESIGN §4: once the ask has ended, every provider that showed it has heard how (aborted or told). */
  everyProviderHeard(): boolean {
    return this.presentations.every(
      ({ call, settlement }) =>
        call.request.signal.aborted || settlement.settlement.status !== 'pending',
    )
  }

  private checkOutcome(state: ModelState) {
    const output = state.ask.output!
    const settled = this.asked!.settlement
    if (output.status === 'answered') {
      expect(settled).toEqual({ status: 'fulfilled', value: output.answer })
      return
    }
    expect(settled.status).toBe('rejected')
    const error = (settled as { reason: unknown }).reason as UserQuestionError
    expect(error).toBeInstanceOf(UserQuestionError)
    expect({ code: error.code, message: error.message, details: error.details }).toEqual({
      code: output.error.code,
      message: output.error.message,
      details: output.error.details,
    })
    if (output.cause === 'caller') expect(error.cause).toBe(CALLER_REASON)
    if (output.cause === 'store') expect((error.cause as Error).message).toBe(STORE_ERROR)
    if (output.cause === 'provider') {
      const rejection = this.presentations.at(-1)?.rejection
      if (error.code === 'ASK_CANCELLED') expect(error).toBe(rejection)
      if (error.code === 'PROVIDER_FAILED') expect(error.cause).toBe(rejection)
    }
    // The provider whose question came down with this ending was given the very error the caller got.
    const last = this.presentations.at(-1)?.call.request.signal
    const reason = last?.reason as UserQuestionError | undefined
    if (reason?.code === error.code && reason.message === error.message) expect(reason).toBe(error)
  }

  /**
   * The timers that run with no ask in flight: none on a process-local store; on a durable one,
   * each open seam's lease renewal and the store's change-feed poll.
   */
  private idleTimers() {
    if (!this.durable) return 0
    // This seam's renewals start once it has read its fleet.
    return (this.releaseRead === undefined ? 1 : 0) + 2
  }

  /** Lets every held write through, and closes both seams and the store. */
  async finish(): Promise<void> {
    this.releaseRead?.()
    await this.holding.release()
    await (this.closing ?? this.seam.close())
    await this.console.close()
    await this.inner.close()
  }
}

/** The write the machine writing in `state` is making: a vote for a presentation's approval that counts. */
function writeOf(state: ModelState): 'settle' | 'vote' {
  if (state.ask.matches('committing')) return 'settle'
  return state.presentation?.context.voting === true ? 'vote' : 'settle'
}

/** What the machine writing in `state` offered the store: the ask's ending, or its presentation's settlement. */
function offeredBy(state: ModelState): AskOutcome {
  if (state.ask.matches('committing')) return state.ask.context.proposal!.outcome
  return state.presentation!.context.proposal!
}

/** How `pending()` lists the ask in `state`: shown to a provider, here or elsewhere, or waiting for one. */
function pendingState(state: ModelState): 'presenting' | 'waiting-for-provider' {
  const { ask } = state
  if (ask.matches({ pending: 'presented' }) || ask.matches({ pending: 'presentedElsewhere' })) {
    return 'presenting'
  }
  // A local ending being written still counts as shown (the seam's reading of `committing`).
  if (ask.matches('committing')) return 'presenting'
  if (ask.matches({ pending: 'following' })) {
    return ask.context.providerElsewhere ? 'presenting' : 'waiting-for-provider'
  }
  return 'waiting-for-provider'
}
