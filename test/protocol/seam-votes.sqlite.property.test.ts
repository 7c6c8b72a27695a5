import { seamVotesSuite } from './seam-votes-suite.js'
import { sqliteStorePerRun } from './sqlite-property-store.js'

seamVotesSuite('SQLite store', sqliteStorePerRun())
