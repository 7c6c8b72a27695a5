import { ApiErrorCodes, MAX_ASK_ID_LENGTH, MAX_BODY_BYTES } from './api-errors.js'

/*
 * The console's HTTP API described as OpenAPI 3.1, served at
 * `GET /api/openapi.json`. Written by hand as data; a test validates it
 * against the OpenAPI schema and checks the real server's answers against
 * the schemas it declares here.
 */

const json = (schema: object) => ({ 'application/json': { schema } })
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` })
const errorResponse = (description: string) => ({ description, content: json(ref('Error')) })

const askIdParameter = {
  name: 'askId',
  in: 'path',
  required: true,
  description: 'The ask id, as `GET /api/asks` lists it (`rpcId`).',
  schema: { type: 'string', pattern: `^[A-Za-z0-9_-]{1,${MAX_ASK_ID_LENGTH}}$` },
}

const settleResponses = {
  '200': {
    description:
      'The store committed it: this is the ask’s outcome, or (with `counted`) an approval kept as a vote while the ask waits for more.',
    content: json(ref('Accepted')),
  },
  '400': errorResponse('The body is not JSON, or the path does not name an ask.'),
  '401': errorResponse('No valid `Authorization: Bearer` token.'),
  '403': errorResponse(
    'This token’s person may not answer the ask (its session, or its `answerers`), or the Origin is foreign.',
  ),
  '405': errorResponse('Another method; see `Allow`.'),
  '409': errorResponse(
    'The ask is not pending (`not-pending`: answered elsewhere, ended, or unknown), or this person approved it already (`already-voted`).',
  ),
  '413': errorResponse(`The body is over ${MAX_BODY_BYTES} bytes.`),
}

/** The OpenAPI 3.1 description of the console's HTTP API. */
export const openApiDocument = {
  openapi: '3.1.0',
  info: {
    title: 'askseam console API',
    version: '1',
    description:
      'Answer the asks a web console shows, from a script or a chat bot, under the rules a console tab follows: the same token, the same checks, and `accepted` only once the store committed the answer.',
  },
  security: [{ bearer: [] }],
  paths: {
    '/api/asks': {
      get: {
        operationId: 'listAsks',
        summary:
          'The pending asks this token may answer, oldest first (with `users`: those whose `answerers` admit its person).',
        responses: {
          '200': { description: 'The asks.', content: json(ref('AskList')) },
          '401': errorResponse('No valid `Authorization: Bearer` token.'),
          '403': errorResponse('The Origin is foreign.'),
          '405': errorResponse('Another method; see `Allow`.'),
        },
      },
    },
    '/api/asks/{askId}/answer': {
      post: {
        operationId: 'answerAsk',
        summary: 'Answers one ask; 200 only after the store committed the answer.',
        parameters: [askIdParameter],
        requestBody: { required: true, content: json(ref('AskUserQuestionAnswer')) },
        responses: {
          ...settleResponses,
          '422': errorResponse(
            'The answer does not fit the questions; `message` and `details` name the rule.',
          ),
        },
      },
    },
    '/api/asks/{askId}/cancel': {
      post: {
        operationId: 'cancelAsk',
        summary: 'Dismisses one ask, as a tab’s Dismiss does; 200 only after the commit.',
        parameters: [askIdParameter],
        requestBody: { required: false, content: json(ref('CancelRequest')) },
        responses: {
          ...settleResponses,
          '422': errorResponse(
            'The body is not a `CancelRequest`, or its `reason` is not one of its two.',
          ),
        },
      },
    },
    '/api/openapi.json': {
      get: {
        operationId: 'openApi',
        summary: 'This description.',
        security: [],
        responses: { '200': { description: 'The OpenAPI document.', content: json({}) } },
      },
    },
  },
  components: {
    securitySchemes: {
      bearer: {
        type: 'http',
        scheme: 'bearer',
        description: 'The console’s token, the one its page URL carries.',
      },
    },
    schemas: {
      AskUserQuestionAnswer: {
        type: 'object',
        description: 'Exactly one item per question; a skipped question is `{ id, selected: [] }`.',
        required: ['answers'],
        properties: {
          answers: { type: 'array', items: ref('AskUserQuestionAnswerItem') },
        },
      },
      AskUserQuestionAnswerItem: {
        type: 'object',
        required: ['id', 'selected'],
        properties: {
          id: { type: 'string' },
          selected: { type: 'array', items: { type: 'string' } },
          custom: { type: 'string' },
        },
      },
      CancelRequest: {
        type: 'object',
        properties: {
          reason: {
            type: 'string',
            enum: ['dismissed', 'discuss'],
            description: '`discuss`: the human wants to talk it over instead.',
          },
        },
      },
      Accepted: {
        type: 'object',
        required: ['accepted'],
        additionalProperties: false,
        properties: {
          accepted: { const: true },
          counted: {
            ...ref('Approvals'),
            description:
              'The answer was an approval, kept as a vote: the count with it. The ask is still pending.',
          },
        },
      },
      Approvals: {
        type: 'object',
        required: ['required', 'given'],
        additionalProperties: false,
        properties: {
          required: { type: 'integer', minimum: 2 },
          given: {
            type: 'array',
            items: { type: 'string' },
            description: 'The ids of who approved so far, in order.',
          },
        },
      },
      Error: {
        type: 'object',
        required: ['error', 'message'],
        additionalProperties: false,
        properties: {
          error: { type: 'string', enum: Object.values(ApiErrorCodes) },
          message: { type: 'string' },
          details: { type: 'object', description: 'With `bad-response`: the rule that failed.' },
        },
      },
      AskList: {
        type: 'object',
        required: ['asks'],
        additionalProperties: false,
        properties: { asks: { type: 'array', items: ref('Ask') } },
      },
      Ask: {
        type: 'object',
        description: 'One pending ask, as a console tab is sent it.',
        required: ['type', 'rpcId', 'questions'],
        additionalProperties: false,
        properties: {
          type: { const: 'question/requested' },
          rpcId: { type: 'string', description: 'The ask id the answer path takes.' },
          sessionId: { type: 'string', description: 'The asking agent’s id.' },
          questions: { type: 'array', items: ref('AskUserQuestionItem') },
          deadline: { type: 'number', description: 'When the ask times out, epoch milliseconds.' },
          approvals: {
            ...ref('Approvals'),
            description: 'On an ask that needs several approvals: how many, and who gave them.',
          },
        },
      },
      AskUserQuestionItem: {
        type: 'object',
        required: ['id', 'question'],
        properties: {
          id: { type: 'string' },
          question: { type: 'string' },
          detail: { type: 'string' },
          header: { type: 'string' },
          options: {
            type: 'array',
            items: {
              type: 'object',
              required: ['label'],
              properties: { label: { type: 'string' }, description: { type: 'string' } },
            },
          },
          multiSelect: { type: 'boolean' },
          intent: {
            type: 'object',
            required: ['kind', 'approve'],
            properties: { kind: { const: 'plan-review' }, approve: { type: 'string' } },
          },
        },
      },
    },
  },
} as const
