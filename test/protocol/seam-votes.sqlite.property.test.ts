import { inProcess } from './run-store.js'
import { seamVotesSuite } from './seam-votes-suite.js'
import { sqliteStorePerRun } from './sqlite-property-store.js'

seamVotesSuite('SQLite store', inProcess(sqliteStorePerRun()))
