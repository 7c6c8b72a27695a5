import type { AskUserQuestionItem } from '../../protocol/index.js'
import type { Responder } from '../../vocabulary/index.js'
import type { ApprovalIds, QuestionRequestedFrame, ReceiptReason } from './frames.js'

/*
 * The relay's public shapes: what it talks to, its options, and what it
 * hands back. `relay.ts` builds it.
 */

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
   * (the web console closes with 1012, "console restarting"), unless its host
   * says the session is over (the web console's `close({ sessionEnded: true })`:
   * 1001, "going away").
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

/**
 * Options of {@link createRelay}. Each limit (`maxFramesPerWindow` to
 * `framesPerTurn`) must be a number greater than 0, the frame counts whole;
 * another value makes `createRelay`, and so `startWebConsole`, throw a
 * `TypeError` naming it.
 */
export interface RelayOptions<TClient extends RelayClient = RelayClient> {
  /**
   * Whether `client` may see and answer the asks of `sessionId` (the asking
   * agent's id; `undefined` for asks without an agent). A throw counts as no.
   * @default every client sees every session
   */
  authorize?: (client: TClient, sessionId: string | undefined) => boolean
  /**
   * Who the person behind `client` is, as the transport authenticated them
   * (DESIGN §12): the `by` of every answer the client gives (a `by` in its
   * frames is never read), whom an ask's `answerers` are held against, and
   * the `hello` frame the client is sent first. `undefined`, or a throw: an
   * anonymous client, which answers without `by` and sees no ask that names
   * its `answerers`. @default every client is anonymous
   */
  responderOf?: (client: TClient) => Responder | undefined
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
 * An approval kept as a vote is accepted with the count it made (`counted`).
 */
export type RelayReceipt =
  /** `counted`: the answer was an approval, kept as a vote; the ask waits for more. */
  | { accepted: true; counted?: ApprovalIds }
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
