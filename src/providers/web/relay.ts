import { createActor } from 'xstate'
import type { Actor } from 'xstate'
import { relayAskMachine } from '../../machines/index.js'
import type { RelayAskOutput, RelayResponse } from '../../machines/index.js'
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
  UserQuestionProvider,
  UserQuestions,
} from '../../protocol/index.js'
import { interpretResult, parseClientFrame } from './frames.js'
import type { QuestionRequestedFrame, ReceiptFrame, ReceiptReason, ServerFrame } from './frames.js'
import { createRelayClients } from './relay-clients.js'
import type { Connection } from './relay-clients.js'

/**
 * Anything the relay can talk to: a WebSocket, a test double, a pipe. The
 * relay core knows no transport.
 */
export interface RelayClient {
  /** Sends the JSON text of one {@link ServerFrame}. May throw if the peer is gone. */
  send(data: string): void
  /**
   * Ends the connection: `congested` when the relay drops a client that does
   * not read (end it at once), `relay-disposed` when the relay goes away
   * (a graceful close lets queued frames reach the peer first). A disposed
   * relay ended no ask by going: every ask that did end was resolved to the
   * client first, so a transport tells its peer that the host may come back
   * (the web console closes with 1012, "console restarting").
   */
  close(reason: RelayCloseReason): void
  /**
   * Bytes queued for the peer and not yet taken by it (a WebSocket's
   * `bufferedAmount`). When present, the relay paces what it writes by it:
   * while it is at `maxBufferedBytes` nothing more is written, and a client
   * that reads nothing for `stallTimeoutMs` meanwhile is dropped (a peer that
   * never reads must not grow the host's memory without bound). Absent, the
   * client counts as always reading.
   */
  readonly bufferedAmount?: number
}

/** Why the relay closes a client. */
export type RelayCloseReason = 'congested' | 'relay-disposed'

/** Options of {@link createRelay}. */
export interface RelayOptions<TClient extends RelayClient = RelayClient> {
  /**
   * Whether `client` may see and answer the asks of `sessionId` (the asking
   * agent's id; `undefined` for asks without an agent). A throw counts as no.
   * @default every client sees every session
   */
  authorize?: (client: TClient, sessionId: string | undefined) => boolean
  /** Frames one client may send per rate window before it is throttled. @default 200 */
  maxFramesPerWindow?: number
  /** The rate window, and how long a throttled client's frames are dropped. @default 1000 */
  rateWindowMs?: number
  /**
   * A client's transport backlog at which writing to it pauses until it reads
   * (what it is owed waits in the relay, shared with every other client).
   * @default 4194304 (4 MiB)
   */
  maxBufferedBytes?: number
  /**
   * How long a paused client may read nothing before it is dropped as
   * congested. A client is dropped only when it stops reading, never because
   * what it is owed is large (DESIGN §7).
   * @default 10000
   */
  stallTimeoutMs?: number
  /**
   * Frames written per turn of the event loop; a larger fan-out continues on
   * later turns so the host keeps reading (and answering) in between.
   * @default 4
   */
  framesPerTurn?: number
}

/** One client's link into the relay, returned by {@link Relay.connect}. */
export interface RelayConnection {
  /** Hands the relay the text of one frame the client sent. */
  receive(data: string): void
  /** Tells the relay the client went away. Idempotent. */
  disconnect(): void
  /** Whether the connection is closed (disconnected, dropped, or the relay disposed). */
  readonly closed: boolean
}

/** One ask the relay holds, as {@link Relay.pending} lists it. */
export interface RelayPendingAsk {
  rpcId: string
  sessionId?: string
  questions: AskUserQuestionItem[]
}

/**
 * What became of one response handed to {@link Relay.respond}: the receipt a
 * connected client would have been sent for it. A `bad-response` carries the
 * rule the answer broke (`message`, and the validation error's `details`).
 */
export type RelayReceipt =
  | { accepted: true }
  | {
      accepted: false
      reason: ReceiptReason
      message?: string
      details?: Readonly<Record<string, unknown>>
    }

/** The host relay: the seam's provider, forwarding each ask to connected clients. */
export interface Relay<TClient extends RelayClient = RelayClient> {
  /** Attaches a client: it is sent every pending ask it may see, then every new one. */
  connect(client: TClient): RelayConnection
  /**
   * The pending asks `client` may see, oldest first, each as the
   * `question/requested` frame a connected client is sent for it.
   */
  asksFor(client: TClient): QuestionRequestedFrame[]
  /**
   * Hands the relay one response from a client that is not connected (an
   * HTTP request, say): `result` is what a `question/respond` frame's
   * `result` would be. It goes through the very path a connected client's
   * does — the same checks, the same ask machine, the same commit — and
   * resolves with the receipt that client would have been sent: `accepted`
   * only once the store committed it.
   */
  respond(client: TClient, rpcId: string, result: unknown): Promise<RelayReceipt>
  /** The asks waiting for a client's answer, oldest first. */
  pending(): RelayPendingAsk[]
  /** How many clients are connected. */
  clientCount(): number
  /** Unregisters from the seam, settles every ask still held, and closes every client. Idempotent. */
  dispose(): void
}

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

/** A response from outside any connection, waiting for its receipt. */
interface Waiter {
  rpcId: string
  resolve(receipt: RelayReceipt): void
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
  /** Responses handed to `respond`, keyed by the responder id their ask's receipts name. */
  const waiters = new Map<string, Waiter>()
  let responders = 0
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

  const answerFrame = (connection: Connection<TClient>, data: string): void => {
    const parsed = parseClientFrame(data)
    if (!parsed.ok) {
      sendTo(connection, frameText(parsed.error))
      return
    }
    const { rpcId } = parsed.frame
    const entry = entries.get(rpcId)
    if (entry === undefined) {
      sendTo(connection, receipt(rpcId, 'not-pending'))
      return
    }
    const allowed = clients.mayAccess(connection.client, entry.sessionId)
    const response = readResponse(allowed, entry.questions, parsed.frame.result)
    if (response.kind === 'answer' || response.kind === 'cancel') clients.touch(connection)
    entry.actor.send({ type: 'response.received', clientId: connection.id, response })
  }

  const provider: UserQuestionProvider = {
    ask(request: ProviderRequest) {
      return new Promise<AskUserQuestionAnswer>((resolve, reject) => {
        const { askId: rpcId, signal } = request
        if (disposed) {
          reject(
            new UserQuestionError('the web relay was disposed', 'ASK_ABORTED', {
              details: { reason: 'relay-disposed' },
            }),
          )
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
        actor.on('receipt', ({ clientId, reason, message, details }) => {
          const waiter = waiters.get(clientId)
          if (waiter !== undefined) {
            waiters.delete(clientId)
            waiter.resolve(
              reason === undefined
                ? { accepted: true }
                : {
                    accepted: false,
                    reason,
                    ...(message === undefined ? {} : { message }),
                    ...(details === undefined ? {} : { details }),
                  },
            )
            return
          }
          const connection = clients.byId(clientId)
          if (connection !== undefined) sendTo(connection, receipt(rpcId, reason, message))
        })
        actor.subscribe({
          complete() {
            // One settle path: out of the table, off the signal, every client told.
            if (entries.get(rpcId) === entry) entries.delete(rpcId)
            // A client paused for reading slowly may still be owed this question
            // (possibly megabytes of plan); only `resolved` would follow, so it is not sent.
            clients.withdraw(entry.requested)
            signal.removeEventListener('abort', ended)
            // The machine tells every responder; this only guards against one left waiting.
            for (const [id, waiter] of waiters) {
              if (waiter.rpcId !== rpcId) continue
              waiters.delete(id)
              waiter.resolve({ accepted: false, reason: 'not-pending' })
            }
            const { outcome } = actor.getSnapshot().output as RelayAskOutput
            // An ask handed over did not end: another provider shows it.
            if (outcome !== undefined) {
              broadcast(
                sessionId,
                frameText(
                  sessionId === undefined
                    ? { type: 'question/resolved', rpcId, outcome }
                    : { type: 'question/resolved', rpcId, sessionId, outcome },
                ),
              )
            }
          },
        })
        // The wait is registered before the question goes out, so an answer can never outrun it.
        entries.set(rpcId, entry)
        signal.addEventListener('abort', ended, { once: true })
        void request.settlement?.then((verdict) =>
          tell({
            type: 'settlement.told',
            verdict:
              verdict.status === 'accepted'
                ? verdict
                : { status: 'refused', error: errorData(verdict.error) },
          }),
        )
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
        const entry = entries.get(rpcId)
        if (entry === undefined || entry.actor.getSnapshot().status !== 'active') {
          resolve({ accepted: false, reason: 'not-pending' })
          return
        }
        const responderId = `responder-${++responders}`
        waiters.set(responderId, { rpcId, resolve })
        const allowed = clients.mayAccess(client, entry.sessionId)
        const response = readResponse(allowed, entry.questions, result)
        entry.actor.send({ type: 'response.received', clientId: responderId, response })
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
