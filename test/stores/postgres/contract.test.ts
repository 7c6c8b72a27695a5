import { createPostgresStore } from '../../../src/stores/postgres/index.js'
import { describePostgres, freshSchema } from '../../support/postgres.js'
import { describeStoreContract } from '../store-contract.js'

// Each test gets a schema of its own on the shared server; a second handle is
// a second store (its own pool and LISTEN connection), as another process
// would open. The database's clock decides whether a deadline has passed.
describePostgres('postgres store', () => {
  describeStoreContract('postgres', {
    open: async () => {
      const schema = await freshSchema()
      const open = () => createPostgresStore({ connectionString: schema.url })
      return { store: open(), reopen: async () => open(), destroy: () => schema.drop() }
    },
    deadlineClock: 'store',
  })
})
