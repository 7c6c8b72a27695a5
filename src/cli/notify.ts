import { startNotifier } from '../notify/index.js'
import type { NotifierOptions } from '../notify/index.js'
import { openStore } from './stores.js'
import type { StoreChoice } from './stores.js'

/** Options of {@link runNotify}: the store, and {@link NotifierOptions} but the store. */
export interface NotifyCommandOptions extends StoreChoice {
  notifier: Omit<NotifierOptions, 'store'>
  write: (text: string) => void
}

/**
 * `askseam notify`: a notifier on the store until SIGINT or SIGTERM. The
 * options are checked before the store is opened, so a bad secret or URL is
 * one line whatever the store's state.
 */
export async function runNotify(options: NotifyCommandOptions): Promise<void> {
  const store = await openStore(options)
  if (store === undefined) {
    throw new TypeError('askseam notify serves a shared store: give --store FILE or --postgres URL')
  }
  let notifier: { close(): Promise<void> }
  try {
    notifier = startNotifier({ ...options.notifier, store })
  } catch (error: unknown) {
    await store.close().catch(() => undefined)
    throw error
  }
  options.write(`askseam notify · posting the store's asks to ${options.notifier.webhook.url}\n`)
  // Nothing else keeps the process alive while no ask is pending: a store's
  // change feed polls on an unreferenced timer, and signal listeners hold nothing.
  const alive = setInterval(() => undefined, 2 ** 30)
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve)
    process.once('SIGTERM', resolve)
  })
  clearInterval(alive)
  const now = () => process.exit(130)
  process.once('SIGINT', now)
  process.once('SIGTERM', now)
  await notifier.close()
  await store.close()
  options.write('askseam notify stopped; what was not delivered goes out with the next notifier.\n')
  process.off('SIGINT', now)
  process.off('SIGTERM', now)
}
