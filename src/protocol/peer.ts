/**
 * Loads an entry point's optional peer dependency. Importing `askseam/web`
 * without `ws` installed (say) throws one line that names the package, not a
 * module-resolution stack from deep inside Node.
 *
 * @example
 * ```ts
 * // at the top of the module that needs the driver
 * const { default: Database } = await importPeer('askseam/sqlite', 'better-sqlite3', () => import('better-sqlite3'))
 * ```
 */
export async function importPeer<TModule>(
  entry: string,
  peer: string,
  load: () => Promise<TModule>,
): Promise<TModule> {
  try {
    return await load()
  } catch (error: unknown) {
    if (isMissing(error, peer)) {
      throw new Error(`${entry} needs the "${peer}" package: npm install ${peer}`, { cause: error })
    }
    throw error
  }
}

function isMissing(error: unknown, peer: string): boolean {
  const code = (error as { code?: unknown } | null)?.code
  if (code !== 'ERR_MODULE_NOT_FOUND' && code !== 'MODULE_NOT_FOUND') return false
  const message = String((error as { message?: unknown }).message)
  // Only the peer itself: a missing file inside an installed peer is a real fault.
  return message.includes(`'${peer}'`) || message.includes(`"${peer}"`)
}
