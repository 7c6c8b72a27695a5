import { WebSocket } from 'ws'
import type { ServerFrame } from '../../../src/providers/web/index.js'

/** A real WebSocket client on loopback that records frames and lets a test await one. */
export interface TestSocket {
  ws: WebSocket
  frames: ServerFrame[]
  /** Resolves with the first recorded frame (past or future) that matches and was not taken yet. */
  next<TType extends ServerFrame['type']>(
    type: TType,
    match?: (frame: Extract<ServerFrame, { type: TType }>) => boolean,
  ): Promise<Extract<ServerFrame, { type: TType }>>
  send(frame: unknown): void
  /** Resolves with the close code. */
  closed: Promise<number>
  close(): Promise<number>
}

export function openSocket(url: string, headers: Record<string, string> = {}): Promise<TestSocket> {
  const ws = new WebSocket(url, { headers })
  const frames: ServerFrame[] = []
  const taken = new Set<ServerFrame>()
  const waiters: {
    test: (frame: ServerFrame) => boolean
    resolve: (frame: ServerFrame) => void
  }[] = []
  const closed = new Promise<number>((resolve) => ws.on('close', (code) => resolve(code)))
  ws.on('message', (data) => {
    const frame = JSON.parse(String(data)) as ServerFrame
    frames.push(frame)
    const waiter = waiters.findIndex(({ test }) => test(frame))
    if (waiter >= 0) {
      taken.add(frame)
      waiters.splice(waiter, 1)[0]!.resolve(frame)
    }
  })
  const socket: TestSocket = {
    ws,
    frames,
    next(type, match) {
      const test = (frame: ServerFrame) =>
        frame.type === type && (match === undefined || match(frame as never))
      const found = frames.find((frame) => !taken.has(frame) && test(frame))
      if (found !== undefined) {
        taken.add(found)
        return Promise.resolve(found as never)
      }
      return new Promise((resolve) => waiters.push({ test, resolve: resolve as never }))
    },
    send: (frame) => ws.send(typeof frame === 'string' ? frame : JSON.stringify(frame)),
    closed,
    close() {
      ws.close()
      return closed
    },
  }
  return new Promise((resolve, reject) => {
    ws.once('open', () => resolve(socket))
    ws.once('unexpected-response', (_request, response) =>
      reject(new Error(`HTTP ${response.statusCode}`)),
    )
    ws.once('error', reject)
  })
}
