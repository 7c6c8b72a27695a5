import type { QuestionRequestedFrame } from 'askseam/web'

// A script answering a running console over HTTP, as a chat bot would:
// ASKSEAM_CONSOLE is its origin (http://127.0.0.1:PORT), ASKSEAM_TOKEN its token.
const origin = process.env.ASKSEAM_CONSOLE ?? 'http://127.0.0.1:8787'
const headers = { Authorization: `Bearer ${process.env.ASKSEAM_TOKEN ?? ''}` }

const listed = await fetch(`${origin}/api/asks`, { headers })
const { asks } = (await listed.json()) as { asks: QuestionRequestedFrame[] }
for (const ask of asks) {
  // Takes the first option of every question; a real bot asks its human first.
  const answers = ask.questions.map((question) => ({
    id: question.id,
    selected: question.options?.slice(0, 1).map((option) => option.label) ?? [],
  }))
  const response = await fetch(`${origin}/api/asks/${ask.rpcId}/answer`, {
    method: 'POST',
    headers: { ...headers, 'Content-Type': 'application/json' },
    body: JSON.stringify({ answers }),
  })
  // 200 once the answer is committed; 409 if it was answered elsewhere first; 422 names the rule.
  console.log(ask.rpcId, response.status, await response.text())
}
