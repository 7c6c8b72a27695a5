/**
 * The `error` codes of the console's HTTP API (`/api/…`), each with the
 * status it goes with. The receipts a relay gives (`not-pending`,
 * `bad-response`, `forbidden`, `already-voted`) keep the names a WebSocket
 * client hears.
 */
export const ApiErrorCodes = {
  /** 400: the request target has path tricks (`.`/`..` segments, escapes) or the ask id is not one the console mints. */
  BAD_PATH: 'bad-path',
  /** 400: the body is not JSON text. */
  INVALID_JSON: 'invalid-json',
  /** 401: no `Authorization: Bearer` header, or not a token the console accepts. */
  UNAUTHORIZED: 'unauthorized',
  /** 403: the token may not answer this ask (its session, or its `answerers`), or the request's Origin is foreign. */
  FORBIDDEN: 'forbidden',
  /** 404: nothing is served at this path. */
  NOT_FOUND: 'not-found',
  /** 405: the path is served, by another method (see the `Allow` header). */
  METHOD_NOT_ALLOWED: 'method-not-allowed',
  /** 409: the ask is not pending: answered or dismissed elsewhere, ended, or unknown. */
  NOT_PENDING: 'not-pending',
  /** 409: the token's person approved this ask already; it waits for other approvers (DESIGN §12). */
  ALREADY_VOTED: 'already-voted',
  /** 413: the body is larger than {@link MAX_BODY_BYTES}. */
  PAYLOAD_TOO_LARGE: 'payload-too-large',
  /** 422: the answer does not fit the ask's questions; `message` and `details` name the rule. */
  BAD_RESPONSE: 'bad-response',
} as const

/** One of the codes of {@link ApiErrorCodes}. */
export type ApiErrorCode = (typeof ApiErrorCodes)[keyof typeof ApiErrorCodes]

/** The largest request body the API reads; reading stops there. Equal to the socket's frame limit. */
export const MAX_BODY_BYTES = 1024 * 1024

/** The longest ask id the API looks up (the console mints 36-character UUIDs). */
export const MAX_ASK_ID_LENGTH = 128
