import { seamFleetSuite } from './seam-fleet-suite.js'
import { sqliteStorePerRun } from './sqlite-property-store.js'

seamFleetSuite('SQLite store', sqliteStorePerRun())
