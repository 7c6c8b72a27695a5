import { createUserQuestions } from '../protocol/index.js'
import type { WebConsoleUser } from '../providers/web/index.js'
import { UsageError } from './flags.js'
import { exitOnSecondSignal, untilStopped } from './signals.js'
import { openServedStore } from './stores.js'
import type { StoreChoice } from './stores.js'

/** Options of {@link runConsole}. */
export interface ConsoleCommandOptions extends StoreChoice {
  /** A fixed port, so open tabs find the console again after a restart. */
  port?: number
  /** A fixed token, for the same reason. */
  token?: string
  /** `--users FILE`: its path and its JSON, which the console checks. */
  users?: { path: string; list: unknown }
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
  const { users } = options
  const web = await startWebConsole({
    seam,
    ...(options.port === undefined ? {} : { port: options.port }),
    ...(options.token === undefined ? {} : { token: options.token }),
    // Checked by the console; the file's JSON is the console's option as it stands.
    ...(users === undefined ? {} : { users: users.list as WebConsoleUser[] }),
  }).catch(async (error: unknown) => {
    await seam.close()
    await store.close()
    // With --users, the one option the console can refuse is the file's list: one line, exit 2.
    if (users !== undefined && error instanceof TypeError) {
      throw new UsageError(
        `--users ${users.path}: ${error.message.replace(/^startWebConsole: /, '')}`,
      )
    }
    throw error
  })
  const stopped = untilStopped()
  options.write(
    users === undefined
      ? `askseam console · every agent sharing the store asks here; open this page to answer:\n${web.url}\n`
      : `askseam console · every agent sharing the store asks here; each person opens this page with their own token:\n${web.url}?token=…\n`,
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
