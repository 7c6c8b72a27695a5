import type { AskUserQuestionItem } from '../../../src/protocol/index.js'
import type { RelayClient, ServerFrame } from '../../../src/providers/web/index.js'

/** A transport-free client: records every frame the relay sends it. */
export interface FakeClient extends RelayClient {
  frames: ServerFrame[]
  closed: boolean
  closeReason?: string
  bufferedAmount: number
  /** Called inside `send`, after the frame is recorded (to answer synchronously). */
  onFrame?: (frame: ServerFrame) => void
  framesOf<TType extends ServerFrame['type']>(type: TType): Extract<ServerFrame, { type: TType }>[]
  /** The client's name, for `authorize`. */
  name: string
}

export function fakeClient(name = 'client'): FakeClient {
  const client: FakeClient = {
    name,
    frames: [],
    closed: false,
    bufferedAmount: 0,
    send(data) {
      const frame = JSON.parse(data) as ServerFrame
      client.frames.push(frame)
      client.onFrame?.(frame)
    },
    close(reason) {
      client.closed = true
      client.closeReason = reason
    },
    framesOf(type) {
      return client.frames.filter((frame) => frame.type === type) as never
    },
  }
  return client
}

export const regionQuestion: AskUserQuestionItem = {
  id: 'region',
  question: 'Which region?',
  options: [{ label: 'eu-west-1' }, { label: 'us-east-1' }],
}

export const notesQuestion: AskUserQuestionItem = { id: 'notes', question: 'Anything else?' }

export const questions: AskUserQuestionItem[] = [regionQuestion, notesQuestion]

export const validAnswer = {
  answers: [
    { id: 'notes', selected: [], custom: 'ship it' },
    { id: 'region', selected: ['us-east-1'] },
  ],
}

export const canonicalAnswer = {
  answers: [
    { id: 'region', selected: ['us-east-1'] },
    { id: 'notes', selected: [], custom: 'ship it' },
  ],
}

export const respond = (rpcId: string, value: unknown = validAnswer): string =>
  JSON.stringify({ type: 'question/respond', rpcId, result: { ok: true, value } })

export const cancel = (rpcId: string, reason?: string): string =>
  JSON.stringify({
    type: 'question/respond',
    rpcId,
    result: {
      ok: false,
      error: reason === undefined ? { code: 'cancelled' } : { code: 'cancelled', reason },
    },
  })

/** Lets the seam and the relay do what they can without time passing (see `settle`). */
export { settle as flush } from '../../support/settle.js'

/** Records how a promise settled, without an unhandled rejection. */
export function track<T>(promise: Promise<T>) {
  const state: { settled: number; value?: T; error?: unknown } = { settled: 0 }
  promise.then(
    (value) => {
      state.settled++
      state.value = value
    },
    (error: unknown) => {
      state.settled++
      state.error = error
    },
  )
  return state
}
