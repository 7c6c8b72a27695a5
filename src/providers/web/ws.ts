import { importPeer } from '../../protocol/internal.js'

/**
 * `ws`, the one place askseam/web loads it: without the package installed,
 * importing the entry point throws one line naming it. Everything else takes it
 * from here (and its types through `import type`), since a static import
 * anywhere in the entry's graph would fail first, with Node's resolution error.
 */
export const ws = await importPeer('askseam/web', 'ws', () => import('ws'))
