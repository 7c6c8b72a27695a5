import { UserQuestionError, encodeAnswer, isUserQuestionError } from '../../protocol/index.js'
import type {
  AskStore,
  AskUserQuestionItem,
  ProviderAnswer,
  ProviderRequest,
  Responder,
  UserQuestionProvider,
} from '../../protocol/index.js'
import { decodeContent, readElicitResult, unreadableResponse } from './decode.js'
import { buildElicitationForm } from './form.js'
import { cancelled } from './provider.js'

/*
 * The asks a round-trip server holds for its clients (DESIGN §14): each
 * pending ask the seam presents waits here, by key, until a retry brings its
 * answer (decoded as the form of DESIGN §7) or the ask ends elsewhere.
 */

/** A presentation of one pending ask, held until a retry answers it or the ask ends. */
export interface Presentation {
  readonly askId: string
  readonly key: string | undefined
  readonly questions: AskUserQuestionItem[]
  readonly signal: AbortSignal
  answer(value: ProviderAnswer): void
  refuse(error: UserQuestionError): void
  /** Set once an answer or a refusal was handed to the seam. */
  decided: boolean
}

/**
 * The provider of a seam served by round trips: it never talks to a client
 * itself. Every pending ask the seam presents (its own and, on a shared
 * store, other processes') is held here by key until a retry brings its
 * answer or the ask ends elsewhere.
 */
export class HeldAsks implements UserQuestionProvider {
  readonly #byKey = new Map<string, Presentation>()
  readonly #waiting = new Map<string, Set<(presentation: Presentation) => void>>()

  constructor(private readonly store: AskStore) {}

  ask(request: ProviderRequest): Promise<ProviderAnswer> {
    return new Promise((resolve, reject) => {
      const presentation: Presentation = {
        askId: request.askId,
        key: undefined,
        questions: request.questions,
        signal: request.signal,
        decided: false,
        answer: (value) => {
          forget()
          resolve(value)
        },
        refuse: (error) => {
          forget()
          reject(error)
        },
      }
      const { signal } = request
      let key: string | undefined
      // Once decided, the presentation is no longer the ask's: a later call with the key gets its outcome from the seam.
      const forget = () => {
        presentation.decided = true
        if (key !== undefined && this.#byKey.get(key) === presentation) this.#byKey.delete(key)
      }
      const drop = () => {
        forget()
        reject(signal.reason)
      }
      if (signal.aborted) {
        drop()
        return
      }
      signal.addEventListener('abort', drop, { once: true })
      // The presentation carries no key; the store's row does.
      this.store.get(request.askId).then(
        (record) => {
          if (record?.key === undefined || presentation.decided) return
          key = record.key
          const held: Presentation = Object.assign(presentation, { key })
          this.#byKey.set(key, held)
          const waiters = this.#waiting.get(key)
          this.#waiting.delete(key)
          for (const waiter of waiters ?? []) waiter(held)
        },
        () => undefined,
      )
    })
  }

  /** Calls `then` with the presentation of the pending ask with `key`, now or once it is presented; returns the cancel. */
  whenPresented(key: string, then: (presentation: Presentation) => void): () => void {
    const held = this.#byKey.get(key)
    if (held !== undefined && !held.decided) {
      then(held)
      return () => undefined
    }
    let waiters = this.#waiting.get(key)
    if (waiters === undefined) {
      waiters = new Set()
      this.#waiting.set(key, waiters)
    }
    waiters.add(then)
    return () => {
      waiters.delete(then)
      if (waiters.size === 0 && this.#waiting.get(key) === waiters) this.#waiting.delete(key)
    }
  }
}

/**
 * What a retry brought for one ask: the client's elicitation result, or a
 * value the SDK set aside, naming only its key (`droppedInputResponseKeys`),
 * because it is no result at all (not an object, or wrapped as `{ method, result }`).
 */
export type InputResponse = { result: unknown } | { unreadable: true }

/** Hands the client's answer for one ask to the seam, decoded as the form of DESIGN §7, with who gave it. */
export function commit(presentation: Presentation, response: InputResponse, by?: Responder): void {
  if (presentation.decided) return
  if (!('result' in response)) {
    presentation.refuse(unreadableResponse())
    return
  }
  try {
    const result = readElicitResult(response.result)
    if (result.action !== 'accept') {
      presentation.refuse(cancelled(result))
      return
    }
    const form = buildElicitationForm(presentation.questions, 'titled')
    const answer = encodeAnswer(presentation.questions, decodeContent(form, result.content))
    presentation.answer(by === undefined ? answer : { ...answer, by })
  } catch (error: unknown) {
    presentation.refuse(
      isUserQuestionError(error)
        ? error
        : new UserQuestionError('The answer could not be read.', 'BAD_ANSWER', { cause: error }),
    )
  }
}
