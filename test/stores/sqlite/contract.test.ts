import { createSqliteStore } from '../../../src/stores/sqlite/index.js'
import { describeStoreContract } from '../store-contract.js'
import { tempDirectory } from './temp-file.js'

// A second createSqliteStore on the same file is a second connection, as a
// second process would open.
describeStoreContract('sqlite', {
  open: async () => {
    const temp = tempDirectory()
    const path = temp.file()
    return {
      store: createSqliteStore({ path }),
      reopen: async () => createSqliteStore({ path }),
      destroy: async () => temp.remove(),
    }
  },
})
