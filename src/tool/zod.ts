import type * as Zod from 'zod'
import { importPeer } from '../protocol/internal.js'

/**
 * zod, the one place askseam/tool loads it: without the package installed,
 * importing the entry point throws one line naming it. Everything else takes
 * it from here (and its types through `import type`), since a static import
 * anywhere in the entry's graph would fail first, with Node's resolution error.
 */
export const zod: typeof Zod = await importPeer('askseam/tool', 'zod', () => import('zod'))
