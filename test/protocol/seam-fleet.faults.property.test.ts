/**
 * The fleet property on stores whose writes and reads fail when a command
 * says: a write that never reaches the store, one that commits and loses
 * its reply, a read that fails. Every ask still has one outcome that never
 * changes, every live caller gets it, and no ask its live seam admitted is
 * left pending with nobody waiting.
 */
import { createMemoryStore } from '../../src/protocol/index.js'
import { seamFleetSuite } from './seam-fleet-suite.js'
import { inProcess } from './run-store.js'
import { sqliteStorePerRun } from './sqlite-property-store.js'

const faults = { faults: true }
seamFleetSuite(
  'memory store whose writes and reads fail',
  inProcess(createMemoryStore),
  undefined,
  faults,
)
seamFleetSuite(
  'SQLite store whose writes and reads fail',
  inProcess(sqliteStorePerRun()),
  undefined,
  faults,
)
