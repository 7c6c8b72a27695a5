/**
 * DESIGN §13: the span of the process that presents an ask is linked to the
 * span of the process that asked, through the trace context kept with the ask
 * in the store. Two real processes on one SQLite file, each with its own
 * tracer, printing its spans as they end.
 */
import { describe, expect, it } from 'vitest'
import type { Child } from '../support/processes.js'
import { isEvent, read, seamProcesses } from '../support/seam-processes.js'
import { tempDirectory } from '../stores/sqlite/temp-file.js'

interface PrintedSpan {
  name: string
  traceId: string
  spanId: string
  parentSpanId?: string
  links: Array<{ traceId: string; spanId: string }>
  attributes: Record<string, unknown>
}

/** The first span named `name` the process printed. */
async function spanOf(child: Child, name: string): Promise<PrintedSpan> {
  const line = await child.line(
    (printed) =>
      isEvent('span')(printed) && (JSON.parse(printed) as { span: PrintedSpan }).span.name === name,
  )
  return (JSON.parse(line) as { span: PrintedSpan }).span
}

describe('askseam/otel across processes', () => {
  it('links the presenting process’s span to the asking process’s span', async () => {
    const temp = tempDirectory()
    const { start, stopAll } = seamProcesses('sqlite', temp.file())
    try {
      const presenter = start('answer', { telemetry: true, label: 'Postgres' })
      await read(presenter, 'ready')
      const asker = start('ask', { telemetry: true, key: 'linked', timeoutMs: 120_000 })
      const { askId } = await read(asker, 'asked')
      expect(await read(asker, 'settled')).toEqual({
        event: 'settled',
        answer: { answers: [{ id: 'db', selected: ['Postgres'] }] },
      })

      const ask = await spanOf(asker, 'askseam.ask')
      expect(ask.attributes).toMatchObject({
        'askseam.ask.id': askId,
        'askseam.ask.key': 'linked',
        'askseam.outcome': 'answered',
      })
      const present = await spanOf(presenter, 'askseam.present')
      expect(present.links).toEqual([{ traceId: ask.traceId, spanId: ask.spanId }])
      expect(present.traceId).not.toBe(ask.traceId)
      expect(present.attributes).toEqual({
        'askseam.ask.id': askId,
        'askseam.presentation.verdict': 'accepted',
      })
      // The asking process showed the ask to no provider of its own.
      expect(asker.lines.filter((line) => line.includes('askseam.present'))).toEqual([])
    } finally {
      await stopAll()
      temp.remove()
    }
  })
})
