/**
 * `GET /api/openapi.json` is a valid OpenAPI 3.1 document (by
 * `@seriousme/openapi-schema-validator`), and every answer the real server
 * gives matches the schema it declares for that path, method and status.
 */
import { Validator } from '@seriousme/openapi-schema-validator'
import { afterEach, describe, expect, it } from 'vitest'
import { createMemoryStore, createUserQuestions } from '../../../src/protocol/index.js'
import { startWebConsole } from '../../../src/providers/web/index.js'
import { questions, track, validAnswer } from './relay-harness.js'
import { openSocket } from './ws-client.js'

const cleanups: Array<() => unknown> = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

type Schema = Record<string, unknown>
type Document = {
  paths: Record<string, Record<string, { responses: Record<string, Schema> }>>
  components: { schemas: Record<string, Schema> }
}

/** Keywords the checker understands; a schema using any other fails the test rather than pass unchecked. */
const KNOWN = new Set([
  'type',
  'properties',
  'required',
  'additionalProperties',
  'items',
  'enum',
  'const',
  '$ref',
  'pattern',
  'description',
])

/** The JSON Schema keywords the document uses, checked strictly; returns what failed, by path. */
function mismatches(document: Document, schema: Schema, value: unknown, at = '$'): string[] {
  for (const keyword of Object.keys(schema)) {
    if (!KNOWN.has(keyword)) throw new Error(`the checker does not know ${keyword} (at ${at})`)
  }
  if (typeof schema.$ref === 'string') {
    const name = schema.$ref.replace('#/components/schemas/', '')
    const target = document.components.schemas[name]
    if (target === undefined) return [`${at}: unresolved ${schema.$ref}`]
    return mismatches(document, target, value, at)
  }
  const found: string[] = []
  if ('const' in schema && value !== schema.const) found.push(`${at}: not ${String(schema.const)}`)
  if (Array.isArray(schema.enum) && !schema.enum.includes(value)) found.push(`${at}: not in enum`)
  const type = schema.type as string | undefined
  const actual = Array.isArray(value) ? 'array' : value === null ? 'null' : typeof value
  if (type !== undefined && type !== actual) return [...found, `${at}: ${actual}, not ${type}`]
  if (typeof schema.pattern === 'string' && !new RegExp(schema.pattern).test(String(value))) {
    found.push(`${at}: does not match ${schema.pattern}`)
  }
  if (actual === 'array' && schema.items !== undefined) {
    ;(value as unknown[]).forEach((item, index) =>
      found.push(...mismatches(document, schema.items as Schema, item, `${at}[${index}]`)),
    )
  }
  if (actual === 'object') {
    const record = value as Record<string, unknown>
    const properties = (schema.properties ?? {}) as Record<string, Schema>
    for (const name of (schema.required ?? []) as string[]) {
      if (!(name in record)) found.push(`${at}.${name}: missing`)
    }
    for (const [name, item] of Object.entries(record)) {
      const property = properties[name]
      if (property !== undefined)
        found.push(...mismatches(document, property, item, `${at}.${name}`))
      else if (schema.additionalProperties === false) found.push(`${at}.${name}: not declared`)
    }
  }
  return found
}

/** The schema the document declares for a response; fails when the status is not declared. */
function declared(document: Document, path: string, method: string, status: number): Schema {
  const operation = document.paths[path]?.[method]
  const response = operation?.responses[String(status)] as
    { content?: Record<string, { schema: Schema }> } | undefined
  if (response === undefined) throw new Error(`${method} ${path} does not declare ${status}`)
  const schema = response.content?.['application/json']?.schema
  if (schema === undefined) throw new Error(`${method} ${path} ${status} declares no JSON body`)
  return schema
}

describe('the console API description', () => {
  it('is valid OpenAPI 3.1, and the real server answers as it declares', async () => {
    const store = createMemoryStore()
    const seam = createUserQuestions({ store })
    const web = await startWebConsole({ seam })
    cleanups.push(() => seam.close())
    cleanups.push(() => web.close())
    const origin = new URL(web.url).origin

    const served = await fetch(`${origin}/api/openapi.json`)
    expect(served.status).toBe(200)
    const document = (await served.json()) as Document & Record<string, unknown>
    const validator = new Validator()
    const validation = await validator.validate(document)
    expect(validation.errors).toBeUndefined()
    expect(validation.valid).toBe(true)
    expect(validator.version).toBe('3.1')

    const tab = await openSocket(web.wsUrl)
    cleanups.push(() => tab.ws.terminate())
    track(seam.ask({ questions, timeoutMs: 600_000 }))
    track(seam.ask({ questions }))
    const first = await tab.next('question/requested')
    const second = await tab.next('question/requested')

    const answerPath = '/api/asks/{askId}/answer'
    const cancelPath = '/api/asks/{askId}/cancel'
    const bearer = { Authorization: `Bearer ${web.token}` }
    const exchanges: Array<{ path: string; method: string; url: string; init?: RequestInit }> = [
      { path: '/api/asks', method: 'get', url: '/api/asks', init: { headers: bearer } },
      { path: '/api/asks', method: 'get', url: '/api/asks' },
      { path: '/api/asks', method: 'get', url: '/api/asks', init: { method: 'DELETE' } },
      {
        path: '/api/asks',
        method: 'get',
        url: '/api/asks',
        init: { headers: { ...bearer, Origin: 'http://evil.example' } },
      },
      ...[
        '{',
        JSON.stringify({ answers: [{ id: 'colour', selected: [] }] }),
        JSON.stringify({ pad: 'x'.repeat(1024 * 1024 + 1) }),
        JSON.stringify(validAnswer),
        JSON.stringify(validAnswer),
      ].map((body) => ({
        path: answerPath,
        method: 'post',
        url: `/api/asks/${first.rpcId}/answer`,
        init: { method: 'POST', headers: bearer, body },
      })),
      {
        path: answerPath,
        method: 'post',
        url: `/api/asks/${first.rpcId}/answer`,
        init: { method: 'POST', body: '{}' },
      },
      { path: answerPath, method: 'post', url: `/api/asks/${first.rpcId}/answer` },
      {
        path: answerPath,
        method: 'post',
        url: `/api/asks/${'x'.repeat(200)}/answer`,
        init: { method: 'POST', headers: bearer, body: '{}' },
      },
      {
        path: cancelPath,
        method: 'post',
        url: `/api/asks/${second.rpcId}/cancel`,
        init: { method: 'POST', headers: bearer },
      },
      {
        path: cancelPath,
        method: 'post',
        url: `/api/asks/${second.rpcId}/cancel`,
        init: { method: 'POST', headers: bearer },
      },
    ]
    const statuses: number[] = []
    for (const exchange of exchanges) {
      const response = await fetch(`${origin}${exchange.url}`, exchange.init)
      statuses.push(response.status)
      expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8')
      const schema = declared(document, exchange.path, exchange.method, response.status)
      expect(mismatches(document, schema, await response.json()), exchange.url).toEqual([])
    }
    // Every status the API gives for these paths was seen at least once.
    expect([...new Set(statuses)].sort()).toEqual([200, 400, 401, 403, 405, 409, 413, 422])
  })
})
