package globalsearch

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/graphrag-global/graphrag-global/shared/batch"
)

// PreparedRun is the run the prepare step started, what it hands on, with
// the batches themselves in the runs store (the workflow's PrepareOutput
// adds what the state machine needs). RunID names the run the plan
// started; the map and reduce steps carry it so that a step of an earlier
// plan of the same query id is refused.
//
// MapConcurrency and ETASeconds are the plan's (docs/contract.md#quota):
// the state machine's Map runs that many batches at once.
type PreparedRun struct {
	QueryID        string `json:"queryId"`
	RunID          string `json:"runId"`
	BatchCount     int    `json:"batchCount"`
	MapConcurrency int    `json:"mapConcurrency"`
	ETASeconds     int    `json:"etaSeconds"`
	// Round, while a dynamic selection rates, is the round to rate next
	// and RatingBatches its batches; 0 once the run is planned
	// (docs/contract.md#dynamic-selection). A planned selection's
	// RatingBatches is the most its rounds could rate, which share the
	// state machine's history with an inline map (docs/contract.md#plan-limits).
	Round         int `json:"round,omitempty"`
	RatingBatches int `json:"ratingBatches,omitempty"`
}

// Prepare claims the query id for p, plans the search (docs/contract.md#prepare) and saves
// the plan as a new run of that id (docs/contract.md#query-ids):
//   - an id that already names a different request is a conflict
//     (KindConflict) naming the id, and nothing is written;
//   - the same request again (a retried or repeated start) plans from the
//     stored request, whose seed replays the shuffle, and starts a clean
//     run: nothing of an earlier plan of the id reaches the new result;
//   - a request that cannot run (invalid input found while planning, a
//     corrupt index, a plan too large) is recorded as a failed result
//     before the error is returned, so the runs store says failed first.
func (e *Engine) Prepare(ctx context.Context, p Params) (PreparedRun, error) {
	return e.PrepareAs(ctx, p, "")
}

// PrepareAs is Prepare for the execution named owner ("" for the query
// id, as the API names its executions): the one that claims the id, or
// whose run the saved plan starts, owns the id's result
// (docs/contract.md#query-ids).
func (e *Engine) PrepareAs(ctx context.Context, p Params, owner string) (PreparedRun, error) {
	out, _, err := e.prepare(ctx, p, owner)
	return out, err
}

// prepare is PrepareAs, also returning the failed result it recorded.
func (e *Engine) prepare(ctx context.Context, p Params, owner string) (PreparedRun, Result, error) {
	if owner == "" {
		owner = p.QueryID
	}
	start, started := time.Now(), e.now()
	fail := func(err error) error {
		e.logger().LogAttrs(ctx, slogError, "prepare failed", stepAttrs(p.QueryID, "prepare", start, "status", "failed", "error", err.Error())...)
		return err
	}
	if err := e.checkStanding(p); err != nil {
		return PreparedRun{}, Result{}, fail(err)
	}
	stored, _, err := ClaimRequest(ctx, e.Runs, p, owner)
	if err != nil {
		if KindOf(err) != KindConflict {
			err = fmt.Errorf("record request of %s: %w", p.QueryID, err)
		}
		return PreparedRun{}, Result{}, fail(err)
	}
	if stored.Selection == SelectionDynamic {
		out, res, err := e.prepareSelection(ctx, stored, owner)
		if err != nil {
			return PreparedRun{}, res, fail(err)
		}
		e.logger().LogAttrs(ctx, slogInfo, "prepared", stepAttrs(p.QueryID, "prepare", start,
			"runId", out.RunID, "round", out.Round, "batches", out.BatchCount, "status", "ok")...)
		return out, Result{}, nil
	}
	plan, err := e.planWith(ctx, stored, nil, 0)
	if err != nil {
		res, err := e.failRun(context.WithoutCancel(ctx), stored, err)
		return PreparedRun{}, res, fail(err)
	}
	plan.CreatedAt = started // the run starts with its prepare (docs/contract.md#timeline)
	out, err := e.savePlan(ctx, plan, NewRunID(), owner)
	if err != nil {
		return PreparedRun{}, Result{}, fail(err)
	}
	e.logger().LogAttrs(ctx, slogInfo, "prepared", stepAttrs(p.QueryID, "prepare", start,
		"runId", plan.RunID, "summaries", plan.SummaryCount, "batches", len(plan.Batches),
		"mapConcurrency", out.MapConcurrency, "etaSeconds", out.ETASeconds, "status", "ok")...)
	return out, Result{}, nil
}

// savePlan saves plan as run runID of its query id, owned by owner
// (docs/contract.md#query-ids).
func (e *Engine) savePlan(ctx context.Context, plan Plan, runID, owner string) (PreparedRun, error) {
	plan.RunID, plan.Owner = runID, owner
	e.sizeMap(plan.Params, &plan)
	countCodePoints(&plan)
	for i := range plan.Batches {
		plan.Batches[i].RunID = plan.RunID
	}
	if plan.CreatedAt.IsZero() {
		plan.CreatedAt = e.now()
	}
	plan.PlannedAt = e.now()
	if err := e.Runs.SavePlan(ctx, plan); err != nil {
		return PreparedRun{}, fmt.Errorf("save plan of %s: %w", plan.Params.QueryID, err)
	}
	return PreparedRun{QueryID: plan.Params.QueryID, RunID: plan.RunID, BatchCount: len(plan.Batches),
		MapConcurrency: plan.MapConcurrency, ETASeconds: plan.ETASeconds}, nil
}

// Plan builds the batches of a search without saving or calling anything:
// prepare's work, and the CLI's dry run. A dynamic selection's dry run is
// the plan of every leaf with the most rating calls the run may make
// (docs/contract.md#dynamic-selection): its communities are known only
// once they are rated.
func (e *Engine) Plan(ctx context.Context, p Params) (Plan, error) {
	if err := e.checkStanding(p); err != nil {
		return Plan{}, err
	}
	var plan Plan
	var err error
	if p.Selection == SelectionDynamic {
		plan, err = e.dynamicDryRun(ctx, p)
	} else {
		plan, err = e.planWith(ctx, p, nil, 0)
	}
	if err == nil {
		e.sizeMap(p, &plan)
	}
	return plan, err
}

// planWith is Plan over the communities pick selects (nil: those of
// p.CommunityLevel), for a run that made spent model calls already.
func (e *Engine) planWith(ctx context.Context, p Params, pick picker, spent int) (Plan, error) {
	skeleton := e.prompts().Map.Skeleton(p.Query)
	counter, err := e.counter(p)
	if err != nil {
		return Plan{}, err
	}
	// The budget check needs no data, so bad input costs no read (docs/contract.md#budgets).
	if err := batch.CheckSkeletonWith(counter, skeleton, p.MapPromptBudget()); err != nil {
		return Plan{}, &Error{Kind: KindInvalidInput, Err: err}
	}
	if err := e.needPrices(p); err != nil {
		return Plan{}, err
	}
	// Before the index is read, and before a dynamic selection rates: a
	// record that cannot be read or is another question's refuses the run
	// before it spends (docs/contract.md#standing-questions).
	prev, err := e.standingBaseline(ctx, p)
	if err != nil {
		return Plan{}, err
	}
	in, plan, err := e.mapTexts(ctx, p, pick)
	if err != nil {
		return Plan{}, err
	}
	sources := in.allSources()
	packed, err := pack(counter, skeleton, p, in)
	if err != nil {
		var tooSmall *batch.TooSmallError
		if errors.As(err, &tooSmall) || errors.Is(err, batch.ErrPromptTooLarge) {
			return Plan{}, &Error{Kind: KindInvalidInput, Err: err}
		}
		return Plan{}, err
	}
	if err := e.checkBatchCount(p, len(packed), spent); err != nil {
		return Plan{}, err
	}
	plan.Batches = planBatches(packed, sources, in.centralities())
	// The leaf plan a dynamic selection is measured against is never run,
	// so no ceiling applies to it, and the plan of the communities it
	// selected is held to them beside what rating spent (checkBatchCount,
	// checkSelectedCost).
	if spent == 0 {
		if err := e.checkCeilings(p, plan.upFront()); err != nil {
			return Plan{}, err
		}
	}
	if p.StandingQuery != "" {
		withTextHashes(plan.Batches, in.textHashes())
		plan.Changes = compareStanding(p, prev, plan.Batches)
	}
	plan.MapSkeleton = skeleton
	return plan, nil
}

// checkBatchCount refuses a plan of more batches than the state machine
// runs, or than the run's model calls allow beside the spent calls a
// dynamic selection made rating (docs/contract.md#plan-limits); a plan
// that spent nothing is held to its ceilings by checkCeilings.
func (e *Engine) checkBatchCount(p Params, batches, spent int) error {
	if spent == referencePlan {
		return nil
	}
	if e.MaxBatches > 0 && batches > e.MaxBatches {
		return Errorf(KindPlanTooLarge,
			"the plan needs %d map batches but the state machine runs at most %d: raise mapTokenBudget or choose a coarser communityLevel",
			batches, e.MaxBatches)
	}
	if spent > 0 && p.MaxModelCalls > 0 && spent+MostModelCalls(batches) > p.MaxModelCalls {
		return Errorf(KindPlanTooLarge,
			"the communities selected need %s, so up to %d model calls beside the %d rating calls made, but this run may make at most %d: raise maxModelCalls or ratingThreshold",
			Plural(batches, "map batch", "map batches"), MostModelCalls(batches), spent, p.MaxModelCalls)
	}
	return nil
}

// planBatches numbers the packed batches and records with each the sources
// of the communities it holds (docs/contract.md#citations) and their
// centrality (docs/contract.md#centrality). A community
// split over many batches is recorded once, with its first part, and a
// batch records at most maxSourceBytes of ids: a coarse community can cite
// more ids than one DynamoDB item holds.
func planBatches(packed []batch.Batch, sources map[string]Sources, centrality map[string]float64) []Batch {
	out := make([]Batch, len(packed))
	recorded := make(map[string]bool, len(sources))
	for i, b := range packed {
		out[i] = Batch{Index: i, CommunityIDs: b.IDs, EstimatedTokens: b.Tokens, Content: b.Content,
			Centrality: make(map[string]float64, len(b.IDs))}
		for _, id := range b.IDs {
			out[i].Centrality[id] = centrality[id]
		}
		room := maxSourceBytes
		for _, id := range b.IDs {
			if !recorded[id] {
				recorded[id] = true
				var src Sources
				src, room = sources[id].within(room)
				out[i].Sources = append(out[i].Sources, src)
			}
		}
	}
	return out
}

// MostModelCalls is the most model calls a plan of batches map batches can
// make (docs/contract.md#state-machine): every attempt of every batch and of the reduce. A plan
// with no batch reduces nothing, so it calls nothing.
func MostModelCalls(batches int) int {
	if batches == 0 {
		return 0
	}
	return MapAttempts*batches + ReduceAttempts
}

// shuffle is Fisher-Yates as docs/contract.md#batching writes it, over a PCG generator so
// a recorded seed replays the same order on every platform.
func shuffle[T any](items []T, seed int64) {
	rng := rand.New(rand.NewPCG(uint64(seed), 0))
	for i := len(items) - 1; i > 0; i-- {
		j := rng.IntN(i + 1)
		items[i], items[j] = items[j], items[i]
	}
}

// mapTexts reads one version of the namespace from start to end
// (docs/contract.md#namespace-versions): when the namespace was replaced
// while it read, what it read may be half deleted, so it reads the new
// version once more, and refuses as throttled (the state machine retries)
// a namespace replaced during both reads.
func (e *Engine) mapTexts(ctx context.Context, p Params, pick picker) (mapInputs, Plan, error) {
	for attempt := 1; ; attempt++ {
		snap, err := e.Index.Open(ctx, p.Namespace)
		if err != nil {
			return mapInputs{}, Plan{Params: p}, fmt.Errorf("open namespace %s: %w", p.Namespace, err)
		}
		in, plan, err := e.mapTextsOf(ctx, snap, p, pick)
		intact, checkErr := snap.Intact(ctx)
		switch {
		case checkErr != nil && err == nil:
			return mapInputs{}, plan, fmt.Errorf("check the version of namespace %s: %w", p.Namespace, checkErr)
		case checkErr != nil || intact:
			return in, plan, err
		case attempt == 2:
			return mapInputs{}, plan, Errorf(KindThrottled, "namespace %s was replaced twice while this search read it: try again", p.Namespace)
		}
	}
}

// mapTextsOf gathers what the map text of every selected summary is built
// from (docs/contract.md#selection, docs/contract.md#map-text), in id
// order: it loads and selects the summaries, groups the claims by leaf,
// reads the chunks they cite and sizes the texts. The plan it returns
// holds what the index said on the way (orphan claims, missing chunks, an
// empty namespace or level).
func (e *Engine) mapTextsOf(ctx context.Context, snap Snapshot, p Params, pick picker) (mapInputs, Plan, error) {
	plan := Plan{Params: p}
	// Claims do not depend on the summaries, so their reads (on DynamoDB a
	// chain of Query pages each) overlap; only the chunks must wait for the
	// claims that cite them.
	claims, stopClaims := readClaims(ctx, snap)
	defer stopClaims()
	h, selected, err := e.loadSelection(ctx, snap, &plan, pick)
	if err != nil || len(selected) == 0 {
		return mapInputs{}, plan, err
	}
	all, err := claims()
	if err != nil {
		return mapInputs{}, plan, fmt.Errorf("load claims of %s: %w", p.Namespace, err)
	}
	in := mapInputs{selected: selected, leavesOf: make([][]string, len(selected))}
	spans := h.leafSpans()
	for i, s := range selected {
		in.leavesOf[i] = spans.of(s.ID)
	}
	in.claimsByLeaf, plan.OrphanClaims = groupClaims(h, all)
	if plan.MissingChunks, err = in.readCited(ctx, snap); err != nil {
		return mapInputs{}, plan, fmt.Errorf("load cited chunks of %s: %w", p.Namespace, err)
	}
	if p.CommunityLevel == AutoLevel {
		if err := in.chooseLevel(h, spans, p, &plan); err != nil {
			return mapInputs{}, plan, err
		}
	}
	if err := e.sizeMapTexts(p, &in); err != nil {
		return mapInputs{}, plan, err
	}
	in.inputCoverage(&plan.Coverage)
	return in, plan, nil
}

// readCited reads the chunks the map texts' claims cite, each once, in
// first-cited order, and counts the cited ids that name no chunk.
func (m *mapInputs) readCited(ctx context.Context, snap Snapshot) (missing int, err error) {
	cited := m.citedIDs()
	m.chunkText, m.chunkDoc = map[string]string{}, map[string]string{}
	if len(cited) > 0 {
		chunks, err := snap.Chunks(ctx, cited)
		if err != nil {
			return 0, err
		}
		for _, c := range chunks {
			m.chunkText[c.ID] = c.Text
			if c.DocumentID != "" {
				m.chunkDoc[c.ID] = c.DocumentID
			}
		}
	}
	for _, id := range cited {
		if _, ok := m.chunkText[id]; !ok {
			missing++
		}
	}
	return missing, nil
}

// sizeMapTexts records the exact size of every map text and refuses a plan
// whose texts exceed mapTextLimit (docs/contract.md#plan-limits): the map
// texts are most of what prepare holds, and a chunk cited from many leaves
// is repeated in each of their map texts, so a small index can ask for
// gigabytes. Their size is known before any is built, so such a plan is
// refused first.
func (e *Engine) sizeMapTexts(p Params, m *mapInputs) error {
	m.sizes = make([]int, len(m.selected))
	w := newWalkScratch()
	var total int64
	for i := range m.selected {
		m.sizes[i] = m.mapTextSize(i, w)
		total += int64(m.sizes[i])
	}
	if limit, why := e.mapTextLimit(p); total > limit {
		return Errorf(KindPlanTooLarge,
			"the map texts of %d summaries hold %d bytes but this deployment plans at most %d (%s): choose a coarser communityLevel, which repeats cited excerpts less, or a namespace whose claims cite fewer shared chunks",
			len(m.selected), total, limit, why)
	}
	return nil
}

// mapTextLimit is the largest total of map-text bytes prepare builds
// (docs/contract.md#plan-limits), and what it derives from. With a batch limit, a plan whose
// map texts exceed MaxBatches batches of the most bytes one batch can hold
// would need more batches than allowed, so that bound never refuses a plan
// that fits: a batch passes the fit test only if 20n + 9a <= 36 x budget
// over its content's n non-ASCII and a ASCII code points (docs/contract.md#token-estimate), and
// bytes <= 4n + a, so one batch holds at most 36 x budget / 5 bytes (4-byte
// runes). The ceiling bounds what one process holds whatever the budgets.
func (e *Engine) mapTextLimit(p Params) (int64, string) {
	ceiling := e.MaxMapTextBytes
	if ceiling <= 0 {
		ceiling = DefaultMaxMapTextBytes
	}
	why := fmt.Sprintf("the map-text ceiling of %d bytes", ceiling)
	if e.MaxBatches > 0 {
		perBatch := (36*int64(p.MapPromptBudget()) + 4) / 5
		if byBatches := int64(e.MaxBatches) * perBatch; byBatches < ceiling {
			return byBatches, fmt.Sprintf("%d batches of at most %d bytes at mapPromptBudget %d: raise mapTokenBudget",
				e.MaxBatches, perBatch, p.MapPromptBudget())
		}
	}
	return ceiling, why
}

// maxListedNamespaces bounds the namespaces an empty search lists: enough
// to spot a typo, small enough for a status line.
const maxListedNamespaces = 50

// namespaces lists the other namespaces of the index when it can say so
// cheaply (the empty one may still hold claims or chunks, which is no help
// to list). The list only explains an empty search, so failing to read it
// does not fail the search.
func (e *Engine) namespaces(ctx context.Context, empty string) []string {
	lister, ok := e.Index.(NamespaceLister)
	if !ok {
		return nil
	}
	names, err := lister.Namespaces(ctx)
	if err != nil {
		e.logger().LogAttrs(ctx, slogError, "list namespaces failed", slog.String("error", err.Error()))
		return nil
	}
	names = slices.DeleteFunc(names, func(n string) bool { return n == empty })
	slices.Sort(names)
	return names[:min(len(names), maxListedNamespaces)]
}

// citedIDs lists the chunk ids the selected summaries' claims cite, each
// once, in first-cited order.
func (m *mapInputs) citedIDs() []string {
	var cited []string
	seen := map[string]bool{}
	for i := range m.selected {
		for c := range m.claims(i) {
			for _, id := range c.SourceChunkIDs {
				if !seen[id] {
					seen[id] = true
					cited = append(cited, id)
				}
			}
		}
	}
	return cited
}

func sortClaims(cs []*Claim) {
	slices.SortFunc(cs, func(a, b *Claim) int { return strings.Compare(a.ID, b.ID) })
}
