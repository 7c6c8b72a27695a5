import { createUserQuestions } from '../../../src/protocol/index.js'
import type { AskStore, UserQuestions, UserQuestionsOptions } from '../../../src/protocol/index.js'
import { createSqliteStore } from '../../../src/stores/sqlite/index.js'

/**
 * A seam whose asks live in the SQLite file at `path` (DESIGN §10). Written
 * against §10's `store` option, which the durable seam adds to
 * `UserQuestionsOptions`; a variable rather than a literal keeps this
 * compiling on a branch that does not have it yet.
 */
export function durableSeam(path: string, options: UserQuestionsOptions = {}): UserQuestions {
  const withStore: UserQuestionsOptions & { store?: AskStore } = {
    ...options,
    store: createSqliteStore({ path }),
  }
  return createUserQuestions(withStore)
}
