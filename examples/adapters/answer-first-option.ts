// Stands in for a person at a UI so the examples run on their own: it picks
// each question's first option. In your program register a real provider
// (askseam/terminal, askseam/web or askseam/mcp) instead.
import type { UserQuestionProvider } from 'askseam'

export const answerFirstOption: UserQuestionProvider = {
  async ask({ questions }) {
    return {
      answers: questions.map((question) => ({
        id: question.id,
        selected: question.options?.[0] === undefined ? [] : [question.options[0].label],
      })),
    }
  },
}
