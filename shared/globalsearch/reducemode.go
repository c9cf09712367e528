package globalsearch

// The values of the request's reduceMode (docs/contract.md#reduce-rounds).
const (
	ReduceModeSingle = "single"
	ReduceModeTree   = "tree"
)

// ReduceModes are reduceMode's values.
var ReduceModes = []string{ReduceModeSingle, ReduceModeTree}

// reduceModeOf is p's reduce mode, a request stored before the field
// existed read as single.
func reduceModeOf(p Params) string {
	if p.ReduceMode == "" {
		return ReduceModeSingle
	}
	return p.ReduceMode
}
