/** The few looks the terminal UI uses; each is the identity when colours are off. */
export interface TerminalStyle {
  /** Whether escape sequences are written at all. */
  readonly colors: boolean
  bold(text: string): string
  dim(text: string): string
  accent(text: string): string
  success(text: string): string
  warning(text: string): string
  danger(text: string): string
  inverse(text: string): string
}

interface ColorProbe {
  isTTY?: boolean
  hasColors?: (count?: number) => boolean
}

/**
 * Whether `output` should get colours. `NO_COLOR` (any non-empty value) turns
 * them off and `FORCE_COLOR` (anything but `0` or `false`) turns them on,
 * whatever the stream is; otherwise a TTY decides through `hasColors()`, which
 * also honours `NODE_DISABLE_COLORS` and `TERM=dumb`.
 */
export function supportsColor(
  output: unknown,
  env: Readonly<Record<string, string | undefined>> = process.env,
): boolean {
  const force = env.FORCE_COLOR
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false
  if (force !== undefined) return force !== '0' && force !== 'false'
  const probe = output as ColorProbe | null | undefined
  if (probe?.isTTY !== true) return false
  return typeof probe.hasColors === 'function' ? probe.hasColors() : true
}

const wrap =
  (enabled: boolean, open: number, close: number) =>
  (text: string): string =>
    enabled && text !== '' ? `\u001b[${open}m${text}\u001b[${close}m` : text

/** The style for a stream: real SGR sequences, or plain text when colours are off. */
export function createStyle(colors: boolean): TerminalStyle {
  return {
    colors,
    bold: wrap(colors, 1, 22),
    dim: wrap(colors, 2, 22),
    accent: wrap(colors, 36, 39),
    success: wrap(colors, 32, 39),
    warning: wrap(colors, 33, 39),
    danger: wrap(colors, 31, 39),
    inverse: wrap(colors, 7, 27),
  }
}
