package globalsearch

import (
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

// Batchings are batching's values.
var Batchings = []string{BatchingGreedy, BatchingStable}

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

// questionAllowance is what every map batch holds room for, beside the
// map prompt without a question (docs/contract.md#question-allowance): 128
// ASCII code points and 8 others (32 and 5 tokens of the estimate), or 32
// tokens of an exact count. Questions that fit it pack the same batches at
// one seed, so a second question reads the first one's batches from a
// prompt cache (docs/contract.md#prompt-cache). The questions of this
// project's tests and docs run to 79 characters, a long sensemaking
// question to about 100; each 32 tokens of allowance cost about 0.4% more
// batches on the generated 10,000-summary index, and 256 code points cost
// stable batching the 90% of batches it keeps after a re-build.
var questionAllowance = tokens.Count{ASCII: 128, NonASCII: 8, Exact: 32}

// smallestCachedPrompt is the fewest tokens a prompt's prefix must have
// for any model this project calls to cache it: Nova's 1,000 (Claude's
// and OpenAI's least is 1,024; docs/contract.md#prompt-cache). Under a map
// prompt budget smaller than that no batch is ever read from a cache, so
// holding room for other questions would buy nothing.
const smallestCachedPrompt = 1000

// questionReserve is what packing counts beside the skeleton of query so
// that the question takes the room of questionAllowance when it is
// shorter (docs/contract.md#batching): in each class of the count, how far
// the question's share of the skeleton falls short of the allowance. A
// question longer in a class packs against its own length there. Nothing
// is reserved under a budget no cache reads from, or where the skeleton
// and the allowance would not fit the budget: the question alone is
// measured then, rather than a budget that fits the question refused.
func questionReserve(c tokens.Counter, t Template, query string, budget int) tokens.Count {
	if budget < smallestCachedPrompt {
		return tokens.Count{}
	}
	share := diff(c.Of(t.Skeleton(query)), c.Of(t.Skeleton("")))
	reserve := tokens.Count{
		ASCII:    max(questionAllowance.ASCII-share.ASCII, 0),
		NonASCII: max(questionAllowance.NonASCII-share.NonASCII, 0),
		Exact:    max(questionAllowance.Exact-share.Exact, 0),
	}
	if !tokens.NewPromptWith(c, t.Skeleton(query)).Fits(reserve, budget) {
		return tokens.Count{}
	}
	return reserve
}

// diff is a - b in each class of the count.
func diff(a, b tokens.Count) tokens.Count {
	return tokens.Count{ASCII: a.ASCII - b.ASCII, NonASCII: a.NonASCII - b.NonASCII, Exact: a.Exact - b.Exact}
}

// pack orders the map texts of in and packs them as p's batching says,
// against the map template t filled with p's question and its allowance
// (docs/contract.md#batching, docs/contract.md#stable-batching).
func pack(counter tokens.Counter, t Template, p Params, in mapInputs) ([]batch.Batch, error) {
	skeleton := t.Skeleton(p.Query)
	reserve := questionReserve(counter, t, p.Query, p.MapPromptBudget())
	if p.Batching == BatchingStable {
		keys, ties := in.stableKeys(p.ShuffleSeed)
		order := batch.StableOrderOf(keys, ties, p.ShuffleSeed)
		packed, err := batch.PackStableSeqReserving(counter, skeleton, reserve, p.MapPromptBudget(), p.ShuffleSeed, in.keyedItems(order, keys))
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
	return batch.PackSeqReserving(counter, skeleton, reserve, p.MapPromptBudget(), in.items(order))
}
