import { createMemoryStore } from '../../src/protocol/index.js'
import { seamFleetSuite } from './seam-fleet-suite.js'

seamFleetSuite('memory store', createMemoryStore)
