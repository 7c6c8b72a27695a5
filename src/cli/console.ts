import { createUserQuestions } from '../protocol/index.js'
import { exitOnSecondSignal, untilStopped } from './signals.js'
import { openServedStore } from './stores.js'
import type { StoreChoice } from './stores.js'

/** Options of {@link runConsole}. */
export interface ConsoleCommandOptions extends StoreChoice {
  /** A fixed port, so open tabs find the console again after a restart. */
  port?: number
  /** A fixed token, for the same reason. */
  token?: string
  write: (text: string) => void
}

/**
 * `askseam console`: one web console for every process sharing the store. It
 * asks nothing itself; its seam presents every pending ask of the store to
 * the browser, and an answer given there settles the ask for whichever
 * process raised it, wherever it runs. Resolves once SIGINT or SIGTERM stops
 * it; stopping ends no ask (DESIGN §10): the questions stay pending in the
 * store, and the next console on the same port and token shows them to the
 * tabs that reconnect.
 */
export async function runConsole(options: ConsoleCommandOptions): Promise<void> {
  const store = await openServedStore(options, 'console')
  const seam = createUserQuestions({ store })
  const { startWebConsole } = await import('../providers/web/index.js')
  const web = await startWebConsole({
    seam,
    ...(options.port === undefined ? {} : { port: options.port }),
    ...(options.token === undefined ? {} : { token: options.token }),
  })
  const stopped = untilStopped()
  options.write(
    `askseam console · every agent sharing the store asks here; open this page to answer:\n${web.url}\n`,
  )
  await stopped
  const undo = exitOnSecondSignal()
  options.write(
    'askseam console stopped; the open questions stay in the store for the next console.\n',
  )
  await web.close()
  await seam.close()
  await store.close()
  undo()
}
