import { vi } from 'vitest'
import { describePostgres } from '../support/postgres.js'
import { postgresRunStore } from './postgres-run-store.js'
import { seamFleetSuite } from './seam-fleet-suite.js'

// Every run makes a schema and waits on real I/O after every command.
vi.setConfig({ testTimeout: 600_000 })

describePostgres('the fleet property on Postgres', () => {
  // As many runs as the other stores: the runs are random, and the suite asks that every
  // ending come up at least once. With 100, CI once saw no timeout at all (about 7 are usual).
  seamFleetSuite('Postgres store', postgresRunStore)
  // Its feed comes after a write's reply, where the memory store's and SQLite's come before it.
  seamFleetSuite('Postgres store whose writes and reads fail', postgresRunStore, undefined, {
    faults: true,
  })
})
