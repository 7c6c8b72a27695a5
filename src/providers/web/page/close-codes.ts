/**
 * The WebSocket close code the console and its page agree on: the server
 * imports it from here, and the page bundles it (so it imports nothing).
 */

/**
 * A console that stops gracefully (`close()`, SIGINT) closes its tabs with
 * 1012, "service restart" (RFC 6455 §7.4.1 as registered with IANA): it ended
 * no ask, and a console on the same port and token may come back. A tab that
 * gets it keeps what it shows and reconnects for longer than after a drop.
 */
export const CONSOLE_RESTARTING_CODE = 1012
