package globalsearch

import (
	"encoding/json"
	"errors"
)

// The values of the request's reduceMode (docs/contract.md#reduce-rounds).
const (
	ReduceModeSingle = "single"
	ReduceModeTree   = "tree"
)

const reduceModeRule = `reduceMode must be "single" or "tree"`

// parseReduceMode reads the reduceMode field: "single" or "tree".
func parseReduceMode(raw json.RawMessage) (string, error) {
	var s string
	if string(raw) == "null" || json.Unmarshal(raw, &s) != nil || (s != ReduceModeSingle && s != ReduceModeTree) {
		return "", errors.New(reduceModeRule)
	}
	return s, nil
}

// reduceModeOf is p's reduce mode, a request stored before the field
// existed read as single.
func reduceModeOf(p Params) string {
	if p.ReduceMode == "" {
		return ReduceModeSingle
	}
	return p.ReduceMode
}
