import { createMemoryStore } from '../../src/protocol/index.js'
import { askModelSuite } from './ask-model-suite.js'

askModelSuite('memory store', false, createMemoryStore)
