package tokens

import (
	"fmt"
	"slices"
	"strings"
	"sync"
)

// Counter measures texts for a budget (docs/contract.md#token-estimate).
// Packing keeps a running Count: each part is measured once with Of, each
// join of two measured texts adds Join, and Tokens turns the sum into a
// token count. A Counter promises that a text built by joining measured
// texts with "\n" (the next one starting with a non-blank, as every part
// header and closing tag does) has at most Tokens(sum) tokens.
type Counter interface {
	// Name is the tokenizer option that selects this counter.
	Name() string
	// Of measures s.
	Of(s string) Count
	// Join measures the "\n" that joins two measured texts, with whatever
	// margin the counter needs for the join to be a bound.
	Join() Count
	// Tokens is the token count of a measure.
	Tokens(c Count) int
	// ByCodePoint reports whether Of is the package's Of, a sum over code
	// points, as for the estimate and the calibrated rates: a split may
	// then grow a prefix code point by code point instead of measuring it
	// afresh.
	ByCodePoint() bool
}

// The tokenizer option's values (docs/contract.md#token-estimate).
const (
	NameEstimate   = "estimate"
	NameO200k      = "o200k"
	NameCL100k     = "cl100k"
	NameCalibrated = "calibrated"
)

// Names are the tokenizer option's values in the order help texts list them.
var Names = []string{NameEstimate, NameO200k, NameCL100k, NameCalibrated}

// EstimateCounter is the project's estimate as a Counter: Of and Tokens are
// the package's Of and Count.Tokens, so packing with it is the arithmetic of
// the pinned cases.
var EstimateCounter Counter = estimate{}

type estimate struct{}

func (estimate) Name() string       { return NameEstimate }
func (estimate) Of(s string) Count  { return Of(s) }
func (estimate) Join() Count        { return Count{ASCII: 1} }
func (estimate) Tokens(c Count) int { return c.Tokens() }
func (estimate) ByCodePoint() bool  { return true }

var (
	registryMu sync.RWMutex
	registry   = map[string]Counter{}
)

// Register makes an exact counter available to For under its Name. The
// vocabularies are large, so they are linked only into the binaries that
// import the package that registers them (shared/tokens/bpe): the ones
// that pack prompts.
func Register(c Counter) {
	registryMu.Lock()
	defer registryMu.Unlock()
	registry[c.Name()] = c
}

// ErrNotLinked means a tokenizer option names an exact counter that this
// binary was built without.
type ErrNotLinked struct{ Name string }

func (e *ErrNotLinked) Error() string {
	return fmt.Sprintf("tokenizer %s is not built into this program (it must import shared/tokens/bpe)", e.Name)
}

// For is the counter of a tokenizer option for the model model calls
// (docs/contract.md#token-estimate): "" is the estimate (a plan stored
// before the option existed), "calibrated" takes the rates of the model's
// family.
func For(name, model string) (Counter, error) {
	switch name {
	case "", NameEstimate:
		return EstimateCounter, nil
	case NameCalibrated:
		return CalibratedFor(model), nil
	case NameO200k, NameCL100k:
		registryMu.RLock()
		defer registryMu.RUnlock()
		if c, ok := registry[name]; ok {
			return c, nil
		}
		return nil, &ErrNotLinked{Name: name}
	}
	return nil, fmt.Errorf("tokenizer must be one of %s, not %q", strings.Join(Names, ", "), name)
}

// Valid reports whether name is a tokenizer option's value.
func Valid(name string) bool { return slices.Contains(Names, name) }

// Separator measures sep where it joins two measured texts: its code
// points for a counter by code point, else its own count plus a Join, whose
// margin covers what the join changes.
func Separator(c Counter, sep string) Count {
	if c.ByCodePoint() {
		return c.Of(sep)
	}
	return c.Of(sep).Add(c.Join())
}
