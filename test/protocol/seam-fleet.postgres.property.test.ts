import { vi } from 'vitest'
import { describePostgres } from '../support/postgres.js'
import { postgresRunStore } from './postgres-run-store.js'
import { seamFleetSuite } from './seam-fleet-suite.js'

// Every run makes a schema and waits on real I/O after every command.
vi.setConfig({ testTimeout: 600_000 })

describePostgres('the fleet property on Postgres', () => {
  seamFleetSuite('Postgres store', postgresRunStore, 100)
})
