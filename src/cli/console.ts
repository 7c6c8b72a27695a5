import { createUserQuestions } from '../protocol/index.js'
import { openStore } from './stores.js'
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
  const store = await openStore(options)
  if (store === undefined) {
    throw new TypeError(
      'askseam console serves a shared store: give --store FILE or --postgres URL',
    )
  }
  // Creating a store never throws for one that cannot be reached (DESIGN
  // §10); a console that serves nothing would look connected and empty for
  // ever, so it reads the store once before it starts.
  try {
    await store.pending()
  } catch (error: unknown) {
    await store.close().catch(() => undefined)
    const where = options.sqlitePath ?? 'the Postgres database'
    // The SQLite store names itself and the file; the line names them once.
    const reason = (error instanceof Error ? error.message : String(error)).replace(
      /^askseam\/sqlite: cannot open .*?: (?=[^:]+$)/,
      '',
    )
    throw new Error(`cannot open the console's store, ${where}: ${reason}`, { cause: error })
  }
  const seam = createUserQuestions({ store })
  const { startWebConsole } = await import('../providers/web/index.js')
  const web = await startWebConsole({
    seam,
    ...(options.port === undefined ? {} : { port: options.port }),
    ...(options.token === undefined ? {} : { token: options.token }),
  })
  options.write(
    `askseam console · every agent sharing the store asks here; open this page to answer:\n${web.url}\n`,
  )
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve)
    process.once('SIGTERM', resolve)
  })
  // A second Ctrl-C while closing stops at once; the store decides every outcome, so nothing is lost.
  const now = () => process.exit(130)
  process.once('SIGINT', now)
  process.once('SIGTERM', now)
  options.write(
    'askseam console stopped; the open questions stay in the store for the next console.\n',
  )
  await web.close()
  await seam.close()
  await store.close()
  process.off('SIGINT', now)
  process.off('SIGTERM', now)
}
