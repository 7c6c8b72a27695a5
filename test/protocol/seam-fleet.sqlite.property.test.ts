import { seamFleetSuite } from './seam-fleet-suite.js'
import { inProcess } from './run-store.js'
import { sqliteStorePerRun } from './sqlite-property-store.js'

seamFleetSuite('SQLite store', inProcess(sqliteStorePerRun()))
