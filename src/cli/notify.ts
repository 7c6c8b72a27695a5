import { startNotifier } from '../notify/index.js'
import type { NotifierOptions } from '../notify/index.js'
import { exitOnSecondSignal, untilStopped } from './signals.js'
import { openServedStore } from './stores.js'
import type { StoreChoice } from './stores.js'

/** Options of {@link runNotify}: the store, and {@link NotifierOptions} but the store. */
export interface NotifyCommandOptions extends StoreChoice {
  notifier: Omit<NotifierOptions, 'store'>
  write: (text: string) => void
}

/**
 * `askseam notify`: a notifier on the store until SIGINT or SIGTERM. The
 * store is read once first (an unreadable one is one line, as for `askseam
 * console`); a secret or URL `startNotifier` refuses closes it again.
 */
export async function runNotify(options: NotifyCommandOptions): Promise<void> {
  const store = await openServedStore(options, 'notify')
  let notifier: { close(): Promise<void> }
  try {
    notifier = startNotifier({ ...options.notifier, store })
  } catch (error: unknown) {
    await store.close().catch(() => undefined)
    throw error
  }
  const stopped = untilStopped()
  // Nothing else keeps the process alive while no ask is pending: a store's
  // change feed polls on an unreferenced timer, and signal listeners hold nothing.
  const alive = setInterval(() => undefined, 2 ** 30)
  options.write(
    `askseam notify · posting the store's asks to ${shownUrl(options.notifier.webhook.url)}\n`,
  )
  await stopped
  clearInterval(alive)
  const undo = exitOnSecondSignal()
  await notifier.close()
  await store.close()
  options.write('askseam notify stopped; what was not delivered goes out with the next notifier.\n')
  undo()
}

/**
 * The receiver as the command prints it: its origin only. The URL's path or
 * query may be its secret (a chat's incoming webhook is), and a line on the
 * terminal ends up in logs. startNotifier accepted it, so it parses.
 */
function shownUrl(url: string): string {
  const { origin, pathname, search } = new URL(url)
  return pathname === '/' && search === '' ? `${origin}/` : `${origin}/…`
}
