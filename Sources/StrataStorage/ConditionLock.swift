import LMDB

// The one lock (LMDB's `ConditionLock`, whose doc comment gives the reason for it), named here for
// the targets above Strata: the tool takes it from `import Strata` and needs no `import LMDB` for
// it. An alias, so Strata's own uses and LMDB's read-handle path stay the very same type and code.
package typealias ConditionLock = LMDB.ConditionLock
