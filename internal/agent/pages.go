package agent

import (
	"github.com/godwit/godwit/internal/store"
	"github.com/godwit/godwit/internal/window"
)

// StoreCounts adapts the store to window.CountStore: token counts kept
// across processes, so a resumed session counts only what is new.
func StoreCounts(st *store.Store) window.CountStore { return st }
