import { UserQuestionError } from '../../protocol/index.js'
import type {
  AskStore,
  AskUserQuestionAnswer,
  AskUserQuestionRequest,
  Responder,
  UserQuestions,
} from '../../protocol/index.js'
import { catchUpWithStore } from '../../protocol/internal.js'
import { commit } from './held-asks.js'
import type { HeldAsks, InputResponse, Presentation } from './held-asks.js'
import { elicitationUnsupported } from './provider.js'
import type { SealedAsk } from './request-state.js'

/*
 * One round of one tool call served by Multi Round-Trip Requests (DESIGN
 * §14). The round ends when the handler returns, or when every ask it waits
 * on is pending in the store and needs the user. Two things can make this
 * instance's view of an ask older than the store's on a shared store: an
 * answer committed on another instance that this seam's change feed has not
 * brought yet, and an ask admitted there that it has not shown yet. So the
 * answers the retry brought are committed to the asks they answer whatever
 * the handler reaches, and before the round tells the client an ask needs
 * the user it asks the store; an ask the store holds settled is read into
 * this seam now, and the handler goes on with its stored outcome.
 */

/** What a round needs. */
export interface RoundOptions {
  seam: UserQuestions
  store: AskStore
  held: HeldAsks
  callId: string
  /** The asks the requestState names. */
  sealed: readonly SealedAsk[]
  /** The retry's answers, by the `inputRequests` key they answer. */
  responses: ReadonlyMap<string, InputResponse>
  /** Whether the client can answer forms. */
  elicits: boolean
  /** Who answers through this round's client (DESIGN §12), when the request names one. */
  responder: Responder | undefined
}

/**
 * A promise that never settles, for a continuation of a round that is over. A
 * fresh one each time: one shared promise would keep every such continuation
 * reachable (and so in memory) for as long as the process lives.
 */
function never(): Promise<never> {
  return new Promise<never>(() => undefined)
}

/** The asks of `askIds` the store holds settled; one it cannot read counts as pending. */
async function settledInStore(store: AskStore, askIds: readonly string[]): Promise<string[]> {
  const states = await Promise.all(
    askIds.map((askId) =>
      store.get(askId).then(
        (record) => record?.state,
        () => undefined,
      ),
    ),
  )
  return askIds.filter((_, index) => states[index] === 'settled')
}

/** One round of one tool call: the handler's asks and whether they all wait for the user. */
export class Round {
  over = false
  #ordinal = 0
  /** Bumped whenever what the handler waits on changes: a store check begun before then decides nothing. */
  #version = 0
  readonly #outstanding = new Set<{ presentation?: Presentation }>()
  /** Answers the retry brought, not yet handed to their asks. */
  readonly #committing = new Set<SealedAsk>()
  readonly #blocked: Array<(presentations: Presentation[]) => void> = []
  readonly blocked: Promise<Presentation[]>

  constructor(private readonly options: RoundOptions) {
    this.blocked = new Promise((resolve) => this.#blocked.push(resolve))
  }

  get callId(): string {
    return this.options.callId
  }

  /** The seam the handler sees: its asks are this round's. */
  facade(): UserQuestions {
    const { seam } = this.options
    return {
      ask: (request) => this.ask(request),
      pending: () => seam.pending(),
      history: (query) => seam.history(query),
      registerProvider: () => {
        throw new UserQuestionError(
          'A tool served by round trips asks through the seam it is given; it cannot register a provider on it.',
          'DUPLICATE_PROVIDER',
        )
      },
      close: () => Promise.resolve(),
    }
  }

  /**
   * Hands every answer the retry brought to the ask it answers, whether or
   * not the handler reaches that ask this round; called before the handler
   * runs. An ask this seam does not show yet is read from the store now; one
   * the store holds settled takes no answer: its first committed outcome stands.
   */
  commitResponses(): void {
    const answered = this.options.sealed.filter(({ requestKey }) =>
      this.options.responses.has(requestKey),
    )
    for (const named of answered) {
      this.commitWhenPresented(named, this.options.responses.get(named.requestKey) as InputResponse)
    }
    if (answered.length > 0) {
      void catchUpWithStore(
        this.options.seam,
        answered.map(({ askId }) => askId),
      )
    }
  }

  private commitWhenPresented(named: SealedAsk, response: InputResponse): void {
    const { held, store, responder } = this.options
    this.#committing.add(named)
    let done = false
    let stop: () => void = () => undefined
    const finish = () => {
      if (done) return
      done = true
      stop()
      this.#committing.delete(named)
      this.changed()
    }
    stop = held.whenPresented(named.key, (presentation) => {
      // Another ask pending under the key: the one named has ended, and its outcome stands.
      if (presentation.askId === named.askId) commit(presentation, response, responder)
      finish()
    })
    if (done) return
    // A failed read gives up rather than hold the round: the ask is put to the user again.
    store.get(named.askId).then((record) => {
      if (record?.state !== 'pending') finish()
    }, finish)
  }

  private ask(request: AskUserQuestionRequest): Promise<AskUserQuestionAnswer> {
    if (this.over) return never()
    const ordinal = this.#ordinal
    this.#ordinal += 1
    const key = request.key ?? `mcp:${this.options.callId}:${ordinal}`
    // The ask outlives this round by design, so the caller's own signal is not passed on.
    const { signal: _ignored, ...rest } = request
    const entry: { presentation?: Presentation } = {}
    this.#outstanding.add(entry)
    this.#version += 1
    const outcome = this.options.seam.ask({ ...rest, key })
    let stopWatching: () => void = () => undefined
    const watch = () => {
      stopWatching = this.options.held.whenPresented(key, (presentation) => {
        // An answer the retry brought went to it: the ask goes on only if it is presented again.
        if (presentation.decided) watch()
        else if (!this.options.elicits) presentation.refuse(elicitationUnsupported())
        else {
          entry.presentation = presentation
          this.changed()
        }
      })
    }
    watch()
    const settled = () => {
      stopWatching()
      this.#outstanding.delete(entry)
      this.#version += 1
      // The handler first goes on with what it got; if it then still waits only on asks for the user, the round ends.
      if (this.#outstanding.size > 0) setImmediate(() => this.check())
    }
    return outcome.then(
      (answer) => {
        settled()
        return this.over ? never() : answer
      },
      (error: unknown) => {
        settled()
        if (this.over) return never()
        return Promise.reject(request.key === undefined ? asRerunError(error) : error)
      },
    )
  }

  private changed(): void {
    this.#version += 1
    this.check()
  }

  /** Ends the round when every ask the handler waits on needs the user, as the store confirms. */
  private check(): void {
    if (this.over || this.#outstanding.size === 0 || this.#committing.size > 0) return
    const presentations: Presentation[] = []
    for (const entry of this.#outstanding) {
      if (entry.presentation === undefined || entry.presentation.decided) return
      presentations.push(entry.presentation)
    }
    void this.confirm(presentations)
  }

  private async confirm(presentations: Presentation[]): Promise<void> {
    const version = this.#version
    const askIds = presentations.map(({ askId }) => askId)
    const settled = await settledInStore(this.options.store, askIds)
    if (this.over || version !== this.#version || presentations.some(({ decided }) => decided)) {
      return
    }
    if (settled.length > 0) {
      // Settled on another instance, and this seam has not heard: it reads them now, and the handler goes on.
      await catchUpWithStore(this.options.seam, settled)
      return
    }
    for (const resolve of this.#blocked.splice(0)) resolve(presentations)
  }
}

/**
 * A handler that asked other questions under a key this call derived (its
 * id and the ask's order) did not ask the same questions on this run as on
 * an earlier one: said so, rather than naming a key nobody chose.
 */
function asRerunError(error: unknown): unknown {
  if (!(error instanceof UserQuestionError) || error.details?.differs !== 'questions') return error
  return new UserQuestionError(
    'this tool call asked other questions than on its earlier run: a handler must ask the same questions, in the same order, on every run of a call',
    'INVALID_REQUEST',
    { details: { ...error.details, field: 'questions' }, cause: error },
  )
}
