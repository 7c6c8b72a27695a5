import { createMemoryStore } from '../../src/protocol/index.js'
import { seamFleetSuite } from './seam-fleet-suite.js'
import { inProcess } from './run-store.js'

seamFleetSuite('memory store', inProcess(createMemoryStore))
