import { createActor } from 'xstate'
import type { Actor } from 'xstate'
import { relayAskMachine } from '../../machines/index.js'
import type {
  RelayAskEvent,
  RelayAskOutput,
  RelayOutcome,
  RelayResponse,
} from '../../machines/index.js'
import {
  UserQuestionError,
  outcomeError,
  errorData,
  toUserQuestionError,
  validateAnswer,
} from '../../protocol/index.js'
import type {
  AskUserQuestionAnswer,
  AskUserQuestionItem,
  ProviderRequest,
  ProviderSettlement,
  UserQuestionProvider,
  UserQuestions,
} from '../../protocol/index.js'
import { interpretResult, parseClientFrame } from './frames.js'
import type { QuestionRequestedFrame, ReceiptFrame, ReceiptReason, ServerFrame } from './frames.js'
import { createRelayClients } from './relay-clients.js'
import type { Connection } from './relay-clients.js'
import { createReceiptWaiters } from './relay-waiters.js'
import type { Relay, RelayClient, RelayOptions, RelayReceipt } from './relay-types.js'

type RelayAskActor = Actor<typeof relayAskMachine>

interface Entry {
  rpcId: string
  sessionId: string | undefined
  questions: AskUserQuestionItem[]
  actor: RelayAskActor
  /** The `question/requested` frame, and its text, serialised once for every client and every replay. */
  frame: QuestionRequestedFrame
  requested: string
}

const receipt = (rpcId: string, reason?: ReceiptReason, message?: string): string => {
  const frame: ReceiptFrame =
    reason === undefined
      ? { type: 'receipt', rpcId, accepted: true }
      : { type: 'receipt', rpcId, accepted: false, reason }
  if (message !== undefined) frame.message = message
  return JSON.stringify(frame)
}

const frameText = (frame: ServerFrame): string => JSON.stringify(frame)

/**
 * Creates the host relay and registers it as `seam`'s provider. Each ask the
 * seam hands it is entered in a pending table keyed by `askId` (the wire's
 * `rpcId`) and then sent as `question/requested` to every connected client
 * allowed to see its session; a client that connects later is sent every
 * still-pending ask, same `rpcId`. The first valid `question/respond` settles
 * the ask and removes it at once; everything after gets a `not-pending`
 * receipt. Whatever ends an ask, every client that may see it is sent
 * `question/resolved`.
 *
 * Throws `DUPLICATE_PROVIDER` when the seam already has a provider.
 *
 * @example
 * ```ts
 * const relay = createRelay(seam, { authorize: (client, sessionId) => sessionId === 'main' })
 * const connection = relay.connect({ send: (text) => socket.send(text), close: () => socket.close() })
 * socket.on('message', (data) => connection.receive(String(data)))
 * socket.on('close', () => connection.disconnect())
 * ```
 */
export function createRelay<TClient extends RelayClient = RelayClient>(
  seam: Pick<UserQuestions, 'registerProvider'>,
  options: RelayOptions<TClient> = {},
): Relay<TClient> {
  const entries = new Map<string, Entry>()
  const waiters = createReceiptWaiters()
  let disposed = false
  const clients = createRelayClients(options, {
    onFrame: (connection, data) => answerFrame(connection, data),
    replay(connection) {
      for (const entry of [...entries.values()]) {
        if (
          entries.get(entry.rpcId) === entry &&
          clients.mayAccess(connection.client, entry.sessionId)
        ) {
          clients.sendTo(connection, entry.requested)
        }
      }
    },
  })
  const { sendTo, broadcast } = clients

  /** Hands one response to its ask's machine; `undefined` when no ask is pending under `rpcId`. */
  const handOver = (
    client: TClient,
    clientId: string,
    rpcId: string,
    result: unknown,
  ): RelayResponse | undefined => {
    const entry = entries.get(rpcId)
    if (entry === undefined || entry.actor.getSnapshot().status !== 'active') return undefined
    const allowed = clients.mayAccess(client, entry.sessionId)
    const response = readResponse(allowed, entry.questions, result)
    entry.actor.send({ type: 'response.received', clientId, response })
    return response
  }

  const answerFrame = (connection: Connection<TClient>, data: string): void => {
    const parsed = parseClientFrame(data)
    if (!parsed.ok) {
      sendTo(connection, frameText(parsed.error))
      return
    }
    const { rpcId, result } = parsed.frame
    const response = handOver(connection.client, connection.id, rpcId, result)
    if (response === undefined) sendTo(connection, receipt(rpcId, 'not-pending'))
    else if (response.kind === 'answer' || response.kind === 'cancel') clients.touch(connection)
  }

  const provider: UserQuestionProvider = {
    ask(request: ProviderRequest) {
      return new Promise<AskUserQuestionAnswer>((resolve, reject) => {
        const { askId: rpcId, signal } = request
        if (disposed) {
          reject(disposedError())
          return
        }
        if (signal.aborted) {
          reject(toUserQuestionError(signal.reason, 'ASK_ABORTED', 'the ask ended'))
          return
        }
        const entry = entryFor(request)
        const { sessionId, actor } = entry
        const tell = (event: Parameters<typeof actor.send>[0]) => {
          if (actor.getSnapshot().status === 'active') actor.send(event)
        }
        const ended = () => {
          const error = toUserQuestionError(signal.reason, 'ASK_ABORTED', 'the ask ended')
          tell({ type: 'ask.ended', error: errorData(error) })
          // The seam no longer waits on this settlement; it is settled for good form.
          reject(error)
        }
        actor.on('provider.settled', ({ response }) => {
          if (response.kind === 'answer') resolve(response.answer)
          else reject(outcomeError(response.error))
        })
        actor.on('receipt', (told) => {
          if (waiters.deliver(told.clientId, told)) return
          const connection = clients.byId(told.clientId)
          if (connection !== undefined)
            sendTo(connection, receipt(rpcId, told.reason, told.message))
        })
        actor.subscribe({
          complete() {
            // One settle path: out of the table, off the signal, every client told.
            if (entries.get(rpcId) === entry) entries.delete(rpcId)
            // A client paused for reading slowly may still be owed this question
            // (possibly megabytes of plan); only `resolved` would follow, so it is not sent.
            clients.withdraw(entry.requested)
            signal.removeEventListener('abort', ended)
            waiters.release(rpcId)
            const { outcome } = actor.getSnapshot().output as RelayAskOutput
            // An ask handed over did not end: another provider shows it.
            if (outcome !== undefined) broadcast(sessionId, resolvedFrame(entry, outcome))
          },
        })
        // The wait is registered before the question goes out, so an answer can never outrun it.
        entries.set(rpcId, entry)
        signal.addEventListener('abort', ended, { once: true })
        void request.settlement?.then((verdict) => tell(settlementEvent(verdict)))
        actor.start()
        broadcast(sessionId, entry.requested)
      })
    },
  }

  const unregister = seam.registerProvider(provider)

  return {
    connect(client) {
      return clients.connect(client, disposed)
    },

    asksFor(client) {
      return [...entries.values()]
        .filter((entry) => clients.mayAccess(client, entry.sessionId))
        .map((entry) => entry.frame)
    },

    respond(client, rpcId, result) {
      return new Promise<RelayReceipt>((resolve) => {
        // Waiting before handing over: a refusal is told at once.
        const waiterId = waiters.wait(rpcId, resolve)
        if (handOver(client, waiterId, rpcId, result) === undefined) {
          waiters.deliver(waiterId, { reason: 'not-pending' })
        }
      })
    },

    pending() {
      return [...entries.values()].map(({ rpcId, sessionId, questions }) =>
        sessionId === undefined ? { rpcId, questions } : { rpcId, sessionId, questions },
      )
    },

    clientCount: () => clients.count(),

    dispose() {
      if (disposed) return
      disposed = true
      // Unregister first: the seam takes each ask back (with a grace or a human's wait, for the
      // next provider), and each ask's signal tells it so.
      unregister()
      // Every client hears how its asks ended before it is closed.
      clients.disposeAll()
    },
  }
}

/** How a provider's request fails once the relay is disposed. */
function disposedError(): UserQuestionError {
  return new UserQuestionError('the web relay was disposed', 'ASK_ABORTED', {
    details: { reason: 'relay-disposed' },
  })
}

/** The seam's verdict on the relay's own settlement, as its ask machine hears it. */
function settlementEvent(verdict: ProviderSettlement): RelayAskEvent {
  return {
    type: 'settlement.told',
    verdict:
      verdict.status === 'refused'
        ? { status: 'refused', error: errorData(verdict.error) }
        : verdict,
  }
}

/** The `question/resolved` frame every client that may see an ended ask is sent. */
function resolvedFrame({ rpcId, sessionId }: Entry, outcome: RelayOutcome): string {
  return frameText(
    sessionId === undefined
      ? { type: 'question/resolved', rpcId, outcome }
      : { type: 'question/resolved', rpcId, sessionId, outcome },
  )
}

/** A client's response read at the relay's edge: who may answer, what the frame says, whether the answer fits. */
function readResponse(
  allowed: boolean,
  questions: AskUserQuestionItem[],
  result: unknown,
): RelayResponse {
  if (!allowed) return { kind: 'forbidden' }
  const interpreted = interpretResult(result)
  if (interpreted.kind === 'invalid') return interpreted
  if (interpreted.kind === 'cancel') return { kind: 'cancel', error: errorData(interpreted.error) }
  try {
    return { kind: 'answer', answer: validateAnswer(questions, interpreted.value) }
  } catch (error: unknown) {
    const { message, details } = toUserQuestionError(error)
    return details === undefined
      ? { kind: 'invalid', message }
      : { kind: 'invalid', message, details }
  }
}

/** A new ask's entry: its `relayAskMachine` and the `question/requested` frame every client is sent. */
function entryFor(request: ProviderRequest): Entry {
  const { askId: rpcId, questions, deadline } = request
  const sessionId = request.agent?.id
  const actor = createActor(relayAskMachine, {
    input:
      sessionId === undefined
        ? { askId: rpcId, questions }
        : { askId: rpcId, sessionId, questions },
  })
  const frame: QuestionRequestedFrame = {
    type: 'question/requested',
    rpcId,
    ...(sessionId === undefined ? {} : { sessionId }),
    questions,
    ...(deadline === undefined ? {} : { deadline }),
  }
  return { rpcId, sessionId, questions, actor, frame, requested: frameText(frame) }
}
