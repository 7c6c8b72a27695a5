import { createMemoryStore } from '../../src/protocol/index.js'
import { inProcess } from './run-store.js'
import { seamVotesSuite } from './seam-votes-suite.js'

seamVotesSuite('memory store', inProcess(createMemoryStore))
