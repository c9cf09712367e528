package globalsearch

import (
	"encoding/json"
	"errors"

	"github.com/graphrag-global/graphrag-global/shared/batch"
	"github.com/graphrag-global/graphrag-global/shared/tokens"
)

// The request's words for its batching (docs/contract.md#stable-batching).
// A request stored before the field existed holds "", which is greedy.
const (
	BatchingGreedy = "greedy"
	BatchingStable = "stable"
)

const batchingRule = `batching must be "greedy" or "stable"`

// parseBatching reads the batching field: "greedy" or "stable".
func parseBatching(raw json.RawMessage) (string, error) {
	var s string
	if string(raw) == "null" || json.Unmarshal(raw, &s) != nil || (s != BatchingGreedy && s != BatchingStable) {
		return "", errors.New(batchingRule)
	}
	return s, nil
}

// batchingOf is p's batching, a request stored before the field existed
// read as greedy.
func batchingOf(p Params) string {
	if p.Batching == "" {
		return BatchingGreedy
	}
	return p.Batching
}

// batchingFitsShuffle refuses shuffle false with stable batching
// (docs/contract.md#stable-batching): stable batching has an order of its
// own, so id order cannot be had with it, and dropping either silently
// would run a search other than the one asked for.
func batchingFitsShuffle(p Params) error {
	if p.Batching == BatchingStable && !p.Shuffle {
		return Errorf(KindInvalidInput,
			`shuffle false keeps summaries in id order, which batching "stable" does not: it orders them by a seeded hash of their claims or sentences; ask for batching "greedy" with shuffle false, or drop shuffle`)
	}
	// Refused with the request, before any read (pack refuses it too).
	if p.Batching == BatchingStable && (p.Tokenizer == tokens.NameO200k || p.Tokenizer == tokens.NameCL100k) {
		return &Error{Kind: KindInvalidInput, Err: batch.ErrStableNeedsCodePoints}
	}
	return nil
}

// pack orders the map texts of in and packs them as p's batching says
// (docs/contract.md#batching, docs/contract.md#stable-batching).
func pack(counter tokens.Counter, skeleton string, p Params, in mapInputs) ([]batch.Batch, error) {
	if p.Batching == BatchingStable {
		keys, ties := in.stableKeys(p.ShuffleSeed)
		order := batch.StableOrderOf(keys, ties, p.ShuffleSeed)
		packed, err := batch.PackStableSeqWith(counter, skeleton, p.MapPromptBudget(), p.ShuffleSeed, in.keyedItems(order, keys))
		if errors.Is(err, batch.ErrStableNeedsCodePoints) {
			return nil, &Error{Kind: KindInvalidInput, Err: err}
		}
		return packed, err
	}
	order := make([]int, in.len())
	for i := range order {
		order[i] = i
	}
	if p.Shuffle {
		shuffle(order, p.ShuffleSeed)
	}
	return batch.PackSeqWith(counter, skeleton, p.MapPromptBudget(), in.items(order))
}
