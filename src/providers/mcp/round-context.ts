import { MAX_RESPONDER_FIELD_LENGTH, toStorableId } from '../../vocabulary/index.js'
import type { Responder } from '../../vocabulary/index.js'

/*
 * What a round trip reads of the MCP server's request context (DESIGN §14):
 * the request, the client's identity and whether it can answer forms.
 */

const CLIENT_INFO_META_KEY = 'io.modelcontextprotocol/clientInfo'
const CLIENT_CAPABILITIES_META_KEY = 'io.modelcontextprotocol/clientCapabilities'

/**
 * What a round trip reads of the MCP server's request context: the shape of
 * the TypeScript SDK v2's `ServerContext`, reduced to the fields used.
 */
export interface RoundTripContext {
  /** The request being handled. */
  mcpReq: {
    /** The MCP method, `tools/call`. */
    method: string
    /** The request's per-request `_meta` envelope (protocol 2026-07-28). */
    envelope?: Record<string, unknown>
    /** The answers of a retried request, keyed as the server's `inputRequests` were. */
    inputResponses?: Record<string, unknown>
    /** Keys of `inputResponses` the SDK dropped as not bare responses. */
    droppedInputResponseKeys?: string[]
    /** The echoed requestState, raw (no verify hook configured). */
    requestState: () => unknown
  }
  /** The HTTP side, when there is one: an authenticated client's id binds the requestState to it. */
  http?: { authInfo?: { clientId?: string } }
}

function envelopeOf(context: RoundTripContext): Record<string, unknown> {
  const envelope = context.mcpReq.envelope
  return typeof envelope === 'object' && envelope !== null ? envelope : {}
}

/** The client's identity: its OAuth client id when the transport authenticated one, else the name it declares. */
export function clientOf(context: RoundTripContext): string | undefined {
  const clientId = context.http?.authInfo?.clientId
  if (typeof clientId === 'string' && clientId !== '') return `oauth:${clientId}`
  const info = envelopeOf(context)[CLIENT_INFO_META_KEY] as { name?: unknown } | undefined
  return typeof info?.name === 'string' ? `name:${info.name}` : undefined
}

/**
 * Who answers through the request's client (DESIGN §12): the client as the
 * transport authenticated it, else as its `clientInfo` names it, with `via: 'mcp'`.
 */
export function responderOf(context: RoundTripContext): Responder | undefined {
  const id = clientOf(context)
  if (id === undefined) return undefined
  const info = envelopeOf(context)[CLIENT_INFO_META_KEY] as { title?: unknown } | undefined
  const name = typeof info?.title === 'string' && info.title.trim() !== '' ? info.title : undefined
  return {
    id: toStorableId(id, MAX_RESPONDER_FIELD_LENGTH),
    ...(name === undefined ? {} : { name: toStorableId(name, MAX_RESPONDER_FIELD_LENGTH) }),
    via: 'mcp',
  }
}

/** Whether the request's client declared form elicitation (an empty `elicitation` object means form). */
export function canElicitForms(context: RoundTripContext): boolean {
  const capabilities = envelopeOf(context)[CLIENT_CAPABILITIES_META_KEY] as
    { elicitation?: { form?: unknown; url?: unknown } } | undefined
  const elicitation = capabilities?.elicitation
  if (typeof elicitation !== 'object' || elicitation === null) return false
  return elicitation.form !== undefined || elicitation.url === undefined
}
