import { createUserQuestions } from '../../../src/protocol/index.js'
import type { UserQuestions, UserQuestionsOptions } from '../../../src/protocol/index.js'
import { createSqliteStore } from '../../../src/stores/sqlite/index.js'

/** A seam whose asks live in the SQLite file at `path`, shared with other processes (DESIGN §10). */
export function durableSeam(path: string, options: UserQuestionsOptions = {}): UserQuestions {
  return createUserQuestions({ ...options, store: createSqliteStore({ path }) })
}
