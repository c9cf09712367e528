package globalsearch

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/graphrag-global/graphrag-global/shared/batch"
	"github.com/graphrag-global/graphrag-global/shared/tokens"
)

// referencePlan is planWith's spent for the plan of every leaf that dynamic
// selection reports beside its own: a figure to compare with, held to no
// ceiling on model calls, since that plan is never run.
const referencePlan = -1

// leafReference plans every leaf for the figures dynamic selection is
// measured against. A leaf plan beyond the deployment's limits is no
// error here: dynamic selection is how such an index is searched, and the
// figures are then unknown (0).
func (e *Engine) leafReference(ctx context.Context, p Params) (Plan, SelectionReport, error) {
	report := SelectionReport{Threshold: p.ratingThreshold()}
	leaf, err := e.planWith(ctx, p, nil, referencePlan)
	switch {
	case KindOf(err) == KindPlanTooLarge:
		return Plan{Params: p}, report, nil
	case err != nil:
		return leaf, report, err
	}
	report.LeafMapBatches, report.LeafMapInputTokens = len(leaf.Batches), leaf.MapInputTokens()
	return leaf, report, nil
}

// dynamicDryRun is Plan for a dynamic selection: the plan of every leaf
// (every community relevant ends there), with the most rating calls the
// run may make, refused as the run would be when even those calls and one
// map batch pass the ceiling.
func (e *Engine) dynamicDryRun(ctx context.Context, p Params) (Plan, error) {
	leaf, report, err := e.leafReference(ctx, p)
	if err != nil || leaf.EmptyNamespace {
		return leaf, err
	}
	h, err := e.openForest(ctx, p)
	if err != nil {
		return Plan{Params: p}, err
	}
	if err := e.checkRatingCeiling(p, h, &report); err != nil {
		return Plan{Params: p}, err
	}
	leaf.Selection = &report
	return leaf, nil
}

// openForest reads the summaries of p's namespace and links them.
func (e *Engine) openForest(ctx context.Context, p Params) (*hierarchy, error) {
	h, _, err := e.openForestAt(ctx, p, "")
	return h, err
}

// openForestAt is openForest of the namespace version version ("" for the
// current one, whatever it is), and returns the version it read.
func (e *Engine) openForestAt(ctx context.Context, p Params, version string) (*hierarchy, string, error) {
	index := pinnedIndex{Index: e.Index, version: version}
	snap, err := index.Open(ctx, p.Namespace)
	if err != nil {
		return nil, "", err
	}
	summaries, err := snap.Summaries(ctx)
	if err != nil {
		return nil, "", fmt.Errorf("load summaries of %s: %w", p.Namespace, err)
	}
	h, err := newHierarchy(summaries)
	return h, snapshotVersion(snap), err
}

// pinnedIndex opens only one version of a namespace: a dynamic selection
// rates and maps the version it started on, or fails, since ratings of one
// version select nothing sure in another (docs/contract.md#selection-steps).
// An empty version, or a store whose snapshots name none, pins nothing.
type pinnedIndex struct {
	Index
	version string
}

func (x pinnedIndex) Open(ctx context.Context, namespace string) (Snapshot, error) {
	snap, err := x.Index.Open(ctx, namespace)
	if err != nil {
		return nil, fmt.Errorf("open namespace %s: %w", namespace, err)
	}
	if v := snapshotVersion(snap); x.version != "" && v != "" && v != x.version {
		// Invalid input, so that the run's failed result is saved: the
		// request cannot go on as it started, and a retried step would
		// meet the same version.
		return nil, Errorf(KindInvalidInput,
			"namespace %s was replaced while this search's dynamic selection rated it, so its ratings are of another version: run the search again", namespace)
	}
	return snap, nil
}

func snapshotVersion(snap Snapshot) string {
	if v, ok := snap.(VersionedSnapshot); ok {
		return v.Version()
	}
	return ""
}

// checkRatingCeiling fills report's worst case of rating over h (every
// community relevant, so every rateable one rated, each batch tried
// RatingAttempts times) and refuses, before any call, a run whose rating
// and the least map stage after it could pass its ceilings
// (SelectionReport.upFront; docs/contract.md#model-call-ceiling).
func (e *Engine) checkRatingCeiling(p Params, h *hierarchy, report *SelectionReport) error {
	batches, tokens := 0, 0
	for round := h.firstRound(); len(round) > 0; round = h.nextRound(round, func(string) bool { return true }) {
		packed, err := packRatings(p, h, round)
		if err != nil {
			return err
		}
		batches += len(packed)
		for _, b := range packed {
			tokens += b.Tokens
		}
	}
	report.MostRatingCalls, report.MostRatingInputTokens = RatingAttempts*batches, tokens
	return e.checkCeilings(p, report.upFront(p))
}

// firstRound is the communities the first round rates: the rateable
// roots, or what is rateable under a blank one, by id.
func (h *hierarchy) firstRound() []string {
	round := h.rateableUnder(h.roots(), nil)
	slices.Sort(round)
	return round
}

// nextRound is the communities the next round rates: the rateable
// children of those in round that are relevant, by id.
func (h *hierarchy) nextRound(round []string, relevant func(string) bool) []string {
	var next []string
	for _, id := range round {
		if relevant(id) {
			next = h.rateableUnder(h.children[id], next)
		}
	}
	slices.Sort(next)
	return next
}

// packRatings packs the titles and summaries of ids into rating batches
// under the map prompt budget, by the same batcher as the map
// (docs/contract.md#batching).
func packRatings(p Params, h *hierarchy, ids []string) ([]batch.Batch, error) {
	items := make([]batch.Item, len(ids))
	for i, id := range ids {
		items[i] = batch.Item{ID: id, Text: ratingText(h.byID[id])}
	}
	// The rating prompt holds the map's question allowance too, so that a
	// round's batches, and the prompt cache, are shared across questions
	// (docs/contract.md#question-allowance).
	reserve := questionReserve(tokens.EstimateCounter, ratePrompt(), p.Query, p.MapPromptBudget())
	packed, err := batch.PackSeqReserving(tokens.EstimateCounter, RatePromptSkeleton(p.Query), reserve, p.MapPromptBudget(), slices.Values(items))
	var tooSmall *batch.TooSmallError
	if errors.As(err, &tooSmall) || errors.Is(err, batch.ErrPromptTooLarge) {
		return nil, &Error{Kind: KindInvalidInput, Err: fmt.Errorf("rating prompt: %w", err)}
	}
	return packed, err
}

// rateBatch makes one rating call and validates its reply against the
// batch's ids. The model is called once; the caller owns the retry.
func (e *Engine) rateBatch(ctx context.Context, p Params, content string, ids []string) (Ratings, ModelResponse, error) {
	req := p.WithCallSettings(rateRequest(p.Query, content, p.MapOutputReserve))
	req.System = e.prompts().System
	model := e.RatingModel
	if model == nil {
		model = e.Model
	}
	resp, err := model.Complete(ctx, req)
	if err != nil {
		return Ratings{}, resp, err
	}
	r, err := ParseRatingOutput(resp.Text, ids)
	return r, resp, err
}

// RatingError is a dynamic selection that could rate none of the root
// communities after every attempt of every rating batch: the run is
// recorded failed at once, as a plan that cannot run is, since trying the
// step again would repeat those calls.
type RatingError struct{ Err error }

func (e *RatingError) Error() string { return e.Err.Error() }
func (e *RatingError) Unwrap() error { return e.Err }
