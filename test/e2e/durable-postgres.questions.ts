import type { AskUserQuestionItem } from '../../src/protocol/index.js'

/** The questions the durable Postgres test's processes ask: the same ones, so the key matches. */
export const durableQuestions: AskUserQuestionItem[] = [
  {
    id: 'db',
    question: 'Which database should the service use?',
    options: [{ label: 'Postgres' }, { label: 'SQLite', description: 'one file' }],
  },
]
