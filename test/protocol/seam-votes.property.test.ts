import { createMemoryStore } from '../../src/protocol/index.js'
import { seamVotesSuite } from './seam-votes-suite.js'

seamVotesSuite('memory store', createMemoryStore)
