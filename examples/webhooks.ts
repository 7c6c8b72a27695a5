import { startNotifier } from 'askseam/notify'
import { createSqliteStore } from 'askseam/sqlite'

// The store every agent of the fleet asks through.
const store = createSqliteStore({ path: '.askseam/asks.db' })
const notifier = startNotifier({
  store,
  webhook: {
    url: 'https://hooks.example.com/askseam',
    secret: process.env.ASKSEAM_WEBHOOK_SECRET ?? '', // 'whsec_' + base64
  },
  consoleUrl: 'http://127.0.0.1:4000/?token=...', // each event links to the ask there
  notifyAfterMs: 30_000, // questions answered within 30 s announce nothing
  remindEveryMs: 15 * 60_000,
  maxReminders: 3,
  escalateAfterMs: 2 * 3_600_000,
})

process.once('SIGTERM', async () => {
  await notifier.close() // what is not delivered yet goes out with the next notifier
  await store.close()
})
