import { vi } from 'vitest'
import { describePostgres } from '../support/postgres.js'
import { postgresRunStore } from './postgres-run-store.js'
import { seamVotesSuite } from './seam-votes-suite.js'

// Every run makes a schema and waits on real I/O after every command.
vi.setConfig({ testTimeout: 600_000 })

describePostgres('the votes property on Postgres', () => {
  seamVotesSuite('Postgres store', postgresRunStore, 100)
})
