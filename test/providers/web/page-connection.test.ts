import { afterEach, describe, expect, it } from 'vitest'
import { WebSocket } from 'ws'
import { createActor } from 'xstate'
import { createUserQuestions } from '../../../src/protocol/index.js'
import { startWebConsole } from '../../../src/providers/web/index.js'
import type { WebConsole } from '../../../src/providers/web/index.js'
import { consoleAskMachine } from '../../../src/machines/index.js'
import type { ConsoleConnectionEnd } from '../../../src/machines/index.js'
import { connectToHost } from '../../../src/providers/web/page/connection.js'
import type {
  Connection,
  ConnectionState,
  SocketLike,
} from '../../../src/providers/web/page/connection.js'

/**
 * The page's connection module in Node against a real web console on
 * loopback (the `ws` client stands in for the browser's WebSocket): online,
 * an answer through it, the end when the host closes or cannot be reached.
 */

const consoles: WebConsole[] = []
const connections: Connection[] = []

afterEach(async () => {
  for (const connection of connections.splice(0)) connection.stop()
  await Promise.all(consoles.splice(0).map((web) => web.close()))
})

async function start(restartGiveUpMs?: number) {
  const seam = createUserQuestions()
  const web = await startWebConsole({ seam })
  consoles.push(web)
  const states: ConnectionState[] = []
  const endings: ConsoleConnectionEnd[] = []
  const frames: Record<string, unknown>[] = []
  let opened = 0
  const connection = connectToHost({
    url: web.wsUrl,
    openSocket: (url) => {
      opened++
      const socket = new WebSocket(url)
      // While the console restarts every attempt is refused; the page's socket logs that.
      socket.on('error', () => undefined)
      return socket as unknown as SocketLike
    },
    onFrame: (frame) => {
      frames.push(frame)
      if (frame.type === 'question/requested') connection.offered(String(frame.rpcId))
    },
    onState: (state) => states.push(state),
    onEnded: (reason) => endings.push(reason),
    timing: {
      retryBaseMs: 20,
      retryMaxMs: 40,
      giveUpMs: 400,
      ...(restartGiveUpMs === undefined ? {} : { restartGiveUpMs }),
    },
  })
  connections.push(connection)
  return { seam, web, connection, states, endings, frames, opened: () => opened }
}

const until = (check: () => boolean) => expect.poll(check, { timeout: 5000 }).toBe(true)
const respond = (rpcId: string, custom: string) =>
  JSON.stringify({
    type: 'question/respond',
    rpcId,
    result: { ok: true, value: { answers: [{ id: 'name', selected: [], custom }] } },
  })

describe('page connection against a real console', () => {
  it('goes online, answers through the relay, and gets the receipt', async () => {
    const { seam, connection, states, frames } = await start()
    await until(() => connection.state === 'online')
    expect(states).toEqual(['connecting', 'online'])
    const asked = seam.ask({ questions: [{ id: 'name', question: 'Name?' }] })
    await until(() => frames.some((frame) => frame.type === 'question/requested'))
    const rpcId = String(frames.find((frame) => frame.type === 'question/requested')?.rpcId)
    connection.send(respond(rpcId, 'Aurora'))
    expect(await asked).toEqual({ answers: [{ id: 'name', selected: [], custom: 'Aurora' }] })
    await until(() => frames.some((frame) => frame.type === 'receipt' && frame.accepted === true))
  })

  it('is restarting when the console closes, for longer than a drop, and back online when it returns on the same port and token', async () => {
    const { seam, web, connection, states } = await start()
    await until(() => connection.state === 'online')
    await web.close()
    await until(() => connection.state === 'restarting')
    // Past the give-up time of a drop (400 ms): a restart has its own, longer budget.
    await new Promise((resolve) => setTimeout(resolve, 700))
    expect(connection.state).toBe('restarting')
    const { port } = new URL(web.url)
    const back = await startWebConsole({ seam, port: Number(port), token: web.token })
    consoles.push(back)
    await until(() => connection.state === 'online')
    expect(states).toEqual(['connecting', 'online', 'restarting', 'online'])
  })

  it("with the ask's machine beside it, sends an answer given while the console restarts when the ask is offered again", async () => {
    const seam = createUserQuestions({ providerGraceMs: 60_000 })
    const web = await startWebConsole({ seam })
    const frames: Record<string, unknown>[] = []
    // The page's wiring: the ask's machine decides what goes out, the connection sends it.
    const ask = createActor(consoleAskMachine)
    ask.on('answer.send', ({ frame }) => connection.send(frame))
    ask.start()
    const connection = connectToHost({
      url: web.wsUrl,
      openSocket: (url) => {
        const socket = new WebSocket(url)
        socket.on('error', () => undefined)
        return socket as unknown as SocketLike
      },
      onFrame: (frame) => {
        frames.push(frame)
        if (frame.type === 'question/requested') {
          connection.offered(String(frame.rpcId))
          ask.send({ type: 'offered', counted: false })
        }
        if (frame.type === 'receipt') ask.send({ type: 'receipt', verdict: 'accepted' })
      },
      onState: () => undefined,
      timing: { retryBaseMs: 20, retryMaxMs: 40, giveUpMs: 400 },
    })
    connections.push(connection)
    const asked = seam.ask({ questions: [{ id: 'name', question: 'Name?' }] })
    await until(() => frames.some((frame) => frame.type === 'question/requested'))
    const rpcId = String(frames.find((frame) => frame.type === 'question/requested')?.rpcId)
    await web.close()
    await until(() => connection.state === 'restarting')
    ask.send({ type: 'answered', frame: respond(rpcId, 'Aurora'), sent: 'answered' })
    const { port } = new URL(web.url)
    consoles.push(await startWebConsole({ seam, port: Number(port), token: web.token }))
    expect(await asked).toEqual({ answers: [{ id: 'name', selected: [], custom: 'Aurora' }] })
    await until(() => ask.getSnapshot().status === 'done')
    expect(ask.getSnapshot().output).toEqual({ left: 'accepted', sent: 'answered' })
    await seam.close()
  })

  it('gives up on a console that said it restarts once its restart budget is spent, then opens no socket', async () => {
    const { web, connection, states, endings, opened } = await start(300)
    await until(() => connection.state === 'online')
    await web.close()
    await until(() => connection.state === 'ended')
    expect(states).toEqual(['connecting', 'online', 'restarting', 'ended'])
    expect(endings).toEqual(['host-unreachable'])
    const sockets = opened()
    await new Promise((resolve) => setTimeout(resolve, 300))
    expect(opened()).toBe(sockets)
  })

  it('ends when the host cannot be reached within the give-up time, then stops trying', async () => {
    // A port nothing listens on any more: every attempt is refused, as after a crash.
    const gone = await startWebConsole({ seam: createUserQuestions() })
    const url = gone.wsUrl
    await gone.close()
    const states: ConnectionState[] = []
    const endings: ConsoleConnectionEnd[] = []
    let opened = 0
    const connection = connectToHost({
      url,
      openSocket: (target) => {
        opened++
        const socket = new WebSocket(target)
        // ws reports a refused connection as an error before the close; the page's socket logs it.
        socket.on('error', () => undefined)
        return socket as unknown as SocketLike
      },
      onFrame: () => undefined,
      onState: (state) => states.push(state),
      onEnded: (reason) => endings.push(reason),
      timing: { retryBaseMs: 20, retryMaxMs: 40, giveUpMs: 400 },
    })
    connections.push(connection)
    await until(() => connection.state === 'ended')
    expect(states).toEqual(['connecting', 'reconnecting', 'ended'])
    expect(endings).toEqual(['host-unreachable'])
    const attempts = opened
    expect(attempts).toBeGreaterThan(2)
    await new Promise((resolve) => setTimeout(resolve, 300))
    expect(opened).toBe(attempts)
  })
})
