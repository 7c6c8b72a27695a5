import { trace } from '@opentelemetry/api'
import { createUserQuestions } from 'askseam'
import { openTelemetry } from 'askseam/otel'

// The global providers by default: register an OpenTelemetry SDK (e.g.
// @opentelemetry/sdk-node) to export what the seam records, or pass your own
// openTelemetry({ tracerProvider, meterProvider }). Without one, nothing is sent.
const seam = createUserQuestions({ telemetry: openTelemetry() })
seam.registerProvider({
  // a stand-in UI that skips every question
  ask: async ({ questions }) => ({ answers: questions.map(({ id }) => ({ id, selected: [] })) }),
})

// The ask's span, askseam.ask, is a child of the span active at ask(): here the tool call's.
const tracer = trace.getTracer('my-agent')
const { answers } = await tracer.startActiveSpan('tool ask_user_question', async (span) => {
  try {
    return await seam.ask({ questions: [{ id: 'db', question: 'Which database?' }] })
  } finally {
    span.end()
  }
})
console.log(JSON.stringify(answers))
await seam.close()
