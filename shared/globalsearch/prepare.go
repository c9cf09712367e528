package globalsearch

import (
	"context"
	"errors"
	"fmt"
	"iter"
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
type PreparedRun struct {
	QueryID    string `json:"queryId"`
	RunID      string `json:"runId"`
	BatchCount int    `json:"batchCount"`
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
	start := time.Now()
	fail := func(err error) error {
		e.logger().LogAttrs(ctx, slogError, "prepare failed", stepAttrs(p.QueryID, "prepare", start, "status", "failed", "error", err.Error())...)
		return err
	}
	stored, _, err := ClaimRequest(ctx, e.Runs, p, owner)
	if err != nil {
		if KindOf(err) != KindConflict {
			err = fmt.Errorf("record request of %s: %w", p.QueryID, err)
		}
		return PreparedRun{}, Result{}, fail(err)
	}
	plan, err := e.Plan(ctx, stored)
	if err != nil {
		res, err := e.failRun(context.WithoutCancel(ctx), stored, err)
		return PreparedRun{}, res, fail(err)
	}
	plan.RunID, plan.Owner = NewRunID(), owner
	for i := range plan.Batches {
		plan.Batches[i].RunID = plan.RunID
	}
	plan.CreatedAt = e.now()
	if err := e.Runs.SavePlan(ctx, plan); err != nil {
		return PreparedRun{}, Result{}, fail(fmt.Errorf("save plan of %s: %w", p.QueryID, err))
	}
	out := PreparedRun{QueryID: p.QueryID, RunID: plan.RunID, BatchCount: len(plan.Batches)}
	e.logger().LogAttrs(ctx, slogInfo, "prepared", stepAttrs(p.QueryID, "prepare", start,
		"runId", plan.RunID, "summaries", plan.SummaryCount, "batches", len(plan.Batches), "status", "ok")...)
	return out, Result{}, nil
}

// Plan builds the batches of a search without saving or calling anything:
// prepare's work, and the CLI's dry run.
func (e *Engine) Plan(ctx context.Context, p Params) (Plan, error) {
	prompts := e.prompts()
	skeleton := prompts.Map.Skeleton(p.Query)
	// The budget check needs no data, so bad input costs no read (docs/contract.md#budgets).
	if _, err := batch.Pack(skeleton, p.MapPromptBudget(), nil); err != nil {
		return Plan{}, &Error{Kind: KindInvalidInput, Err: err}
	}
	texts, sources, plan, err := e.mapTexts(ctx, p)
	if err != nil {
		return Plan{}, err
	}
	order := make([]int, texts.len())
	for i := range order {
		order[i] = i
	}
	if p.Shuffle {
		shuffle(order, p.ShuffleSeed)
	}
	packed, err := batch.PackSeq(skeleton, p.MapPromptBudget(), texts.items(order))
	if err != nil {
		var tooSmall *batch.TooSmallError
		if errors.As(err, &tooSmall) || errors.Is(err, batch.ErrPromptTooLarge) {
			return Plan{}, &Error{Kind: KindInvalidInput, Err: err}
		}
		return Plan{}, err
	}
	if e.MaxBatches > 0 && len(packed) > e.MaxBatches {
		return Plan{}, Errorf(KindPlanTooLarge,
			"the plan needs %d map batches but the state machine runs at most %d: raise mapTokenBudget or choose a coarser communityLevel",
			len(packed), e.MaxBatches)
	}
	if most := MostModelCalls(len(packed)); p.MaxModelCalls > 0 && most > p.MaxModelCalls {
		return Plan{}, Errorf(KindPlanTooLarge,
			"the plan needs %d map batches, so up to %d model calls (%d attempts per batch, %d for the reduce), but this run may make at most %d: raise maxModelCalls (up to the deployment's MaxModelCalls, which bounds it) or mapTokenBudget, or choose a coarser communityLevel",
			len(packed), most, MapAttempts, ReduceAttempts, p.MaxModelCalls)
	}
	plan.Batches = make([]Batch, len(packed))
	recorded := make(map[string]bool, len(sources))
	for i, b := range packed {
		plan.Batches[i] = Batch{Index: i, CommunityIDs: b.IDs, EstimatedTokens: b.Tokens, Content: b.Content}
		// A community split over many batches is recorded once, with its
		// first part, and a batch records at most maxSourceBytes of ids: a
		// coarse community can cite more ids than one DynamoDB item holds.
		room := maxSourceBytes
		for _, id := range b.IDs {
			if !recorded[id] {
				recorded[id] = true
				var src Sources
				src, room = sources[id].within(room)
				plan.Batches[i].Sources = append(plan.Batches[i].Sources, src)
			}
		}
	}
	return plan, nil
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

// mapInputs is what the map texts of the selected summaries are built
// from, in id order. A text is built only when the packer draws it: all of
// them at once would be as large as all the batches (docs/contract.md#plan-limits).
type mapInputs struct {
	selected     []*Summary
	leavesOf     [][]string
	sizes        []int
	claimsByLeaf map[string][]*Claim
	chunkText    map[string]string
}

func (m mapInputs) len() int { return len(m.selected) }

// items builds the map texts of the summaries at the given indexes, in
// that order, one per item drawn.
func (m mapInputs) items(order []int) iter.Seq[batch.Item] {
	return func(yield func(batch.Item) bool) {
		for _, i := range order {
			s := m.selected[i]
			if !yield(batch.Item{ID: s.ID, Text: mapText(s.Summary, m.leavesOf[i], m.claimsByLeaf, m.chunkText, m.sizes[i])}) {
				return
			}
		}
	}
}

// mapTexts reads one version of the namespace from start to end
// (docs/contract.md#namespace-versions): when the namespace was replaced
// while it read, what it read may be half deleted, so it reads the new
// version once more, and refuses as throttled (the state machine retries)
// a namespace replaced during both reads.
func (e *Engine) mapTexts(ctx context.Context, p Params) (mapInputs, map[string]Sources, Plan, error) {
	for attempt := 1; ; attempt++ {
		snap, err := e.Index.Open(ctx, p.Namespace)
		if err != nil {
			return mapInputs{}, nil, Plan{Params: p}, fmt.Errorf("open namespace %s: %w", p.Namespace, err)
		}
		in, sources, plan, err := e.mapTextsOf(ctx, snap, p)
		intact, checkErr := snap.Intact(ctx)
		switch {
		case checkErr != nil && err == nil:
			return mapInputs{}, nil, plan, fmt.Errorf("check the version of namespace %s: %w", p.Namespace, checkErr)
		case checkErr != nil || intact:
			return in, sources, plan, err
		case attempt == 2:
			return mapInputs{}, nil, plan, Errorf(KindThrottled, "namespace %s was replaced twice while this search read it: try again", p.Namespace)
		}
	}
}

// mapTextsOf loads the namespace and gathers what the map text of every
// selected summary is built from (docs/contract.md#selection,
// docs/contract.md#map-text), in id order, after checking their total size.
func (e *Engine) mapTextsOf(ctx context.Context, snap Snapshot, p Params) (mapInputs, map[string]Sources, Plan, error) {
	plan := Plan{Params: p}
	// Claims do not depend on the summaries, so their reads (on DynamoDB a
	// chain of Query pages each) overlap; only the chunks must wait for the
	// claims that cite them. A namespace or level found empty stops the
	// claims read and waits for it, so no call outlives this one.
	claimsCtx, stopClaims := context.WithCancel(ctx)
	claimsDone := make(chan struct{})
	var claims []Claim
	var claimsErr error
	go func() {
		defer close(claimsDone)
		claims, claimsErr = snap.Claims(claimsCtx)
	}()
	defer func() { stopClaims(); <-claimsDone }()
	summaries, err := snap.Summaries(ctx)
	if err != nil {
		return mapInputs{}, nil, plan, fmt.Errorf("load summaries of %s: %w", p.Namespace, err)
	}
	if len(summaries) == 0 {
		plan.EmptyNamespace = true
		plan.AvailableNamespaces = e.namespaces(ctx, p.Namespace)
		return mapInputs{}, nil, plan, nil
	}
	h, err := newHierarchy(summaries)
	if err != nil {
		return mapInputs{}, nil, plan, err
	}
	selected := h.selectSummaries(p.CommunityLevel)
	plan.SummaryCount = len(selected)
	if len(selected) == 0 {
		if p.CommunityLevel != LeafLevel {
			plan.AvailableLevels = h.levels()
		}
		return mapInputs{}, nil, plan, nil
	}
	<-claimsDone
	if claimsErr != nil {
		return mapInputs{}, nil, plan, fmt.Errorf("load claims of %s: %w", p.Namespace, claimsErr)
	}
	claimsByLeaf := map[string][]*Claim{}
	for i := range claims {
		c := &claims[i]
		if !h.isLeaf(c.CommunityID) {
			plan.OrphanClaims++
			continue
		}
		claimsByLeaf[c.CommunityID] = append(claimsByLeaf[c.CommunityID], c)
	}
	for _, cs := range claimsByLeaf {
		sortClaims(cs)
	}

	leavesOf := make([][]string, len(selected))
	var cited []string
	seen := map[string]bool{}
	for i, s := range selected {
		leavesOf[i] = h.descendantLeaves(s.ID, nil)
		for _, leaf := range leavesOf[i] {
			for _, c := range claimsByLeaf[leaf] {
				for _, id := range c.SourceChunkIDs {
					if !seen[id] {
						seen[id] = true
						cited = append(cited, id)
					}
				}
			}
		}
	}
	chunkText := map[string]string{}
	if len(cited) > 0 {
		chunks, err := snap.Chunks(ctx, cited)
		if err != nil {
			return mapInputs{}, nil, plan, fmt.Errorf("load cited chunks of %s: %w", p.Namespace, err)
		}
		for _, c := range chunks {
			chunkText[c.ID] = c.Text
		}
	}
	for _, id := range cited {
		if _, ok := chunkText[id]; !ok {
			plan.MissingChunks++
		}
	}

	// docs/contract.md#plan-limits: the map texts are most of what prepare holds, and a chunk
	// cited from many leaves is repeated in each of their map texts, so a
	// small index can ask for gigabytes. Their exact size is known before
	// any is built, and a plan beyond the bound is refused first.
	sizes := make([]int, len(selected))
	seenScratch := map[string]bool{}
	var total int64
	for i, s := range selected {
		sizes[i] = mapTextSize(s.Summary, leavesOf[i], claimsByLeaf, chunkText, seenScratch)
		total += int64(sizes[i])
	}
	if limit, why := e.mapTextLimit(p); total > limit {
		return mapInputs{}, nil, plan, Errorf(KindPlanTooLarge,
			"the map texts of %d summaries hold %d bytes but this deployment plans at most %d (%s): choose a coarser communityLevel, which repeats cited excerpts less, or a namespace whose claims cite fewer shared chunks",
			len(selected), total, limit, why)
	}
	sources := make(map[string]Sources, len(selected))
	for i, s := range selected {
		sources[s.ID] = mapSources(s.ID, leavesOf[i], claimsByLeaf, chunkText)
	}
	return mapInputs{selected: selected, leavesOf: leavesOf, sizes: sizes, claimsByLeaf: claimsByLeaf, chunkText: chunkText}, sources, plan, nil
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

func sortClaims(cs []*Claim) {
	slices.SortFunc(cs, func(a, b *Claim) int { return strings.Compare(a.ID, b.ID) })
}

// Section markers of a map text (docs/contract.md#map-text).
const (
	summaryHeader  = "[Community summary]\n"
	claimsHeader   = "\n\n[Supporting claims]"
	excerptsHeader = "\n\n[Source excerpts]"
)

// mapText renders one summary with its claims and excerpts (docs/contract.md#map-text);
// size is mapTextSize's answer, so the text is built in one allocation.
func mapText(summary string, leaves []string, claimsByLeaf map[string][]*Claim, chunkText map[string]string, size int) string {
	var b strings.Builder
	b.Grow(size)
	b.WriteString(summaryHeader)
	b.WriteString(summary)
	var chunkIDs []string
	seen := map[string]bool{}
	first := true
	for _, leaf := range leaves {
		for _, c := range claimsByLeaf[leaf] {
			if first {
				b.WriteString(claimsHeader)
				first = false
			}
			b.WriteString("\n- ")
			b.WriteString(c.Subject)
			if c.Object != "" {
				b.WriteString(" -> ")
				b.WriteString(c.Object)
			}
			b.WriteString(": ")
			b.WriteString(c.Description)
			for _, id := range c.SourceChunkIDs {
				if _, ok := chunkText[id]; ok && !seen[id] {
					seen[id] = true
					chunkIDs = append(chunkIDs, id)
				}
			}
		}
	}
	if len(chunkIDs) > 0 {
		b.WriteString(excerptsHeader)
		for _, id := range chunkIDs {
			b.WriteString("\n- (")
			b.WriteString(id)
			b.WriteString(") ")
			b.WriteString(chunkText[id])
		}
	}
	return b.String()
}

// mapSources lists the claims and existing chunks of one map text, in the
// order mapText writes them (docs/contract.md#citations citations).
func mapSources(id string, leaves []string, claimsByLeaf map[string][]*Claim, chunkText map[string]string) Sources {
	src := Sources{CommunityID: id, ClaimIDs: []string{}, ChunkIDs: []string{}}
	seen := map[string]bool{}
	for _, leaf := range leaves {
		for _, c := range claimsByLeaf[leaf] {
			src.ClaimIDs = append(src.ClaimIDs, c.ID)
			for _, chunk := range c.SourceChunkIDs {
				if _, ok := chunkText[chunk]; ok && !seen[chunk] {
					seen[chunk] = true
					src.ChunkIDs = append(src.ChunkIDs, chunk)
				}
			}
		}
	}
	return src
}

// mapTextSize is the exact length of mapText's result, computed without
// building it: each cited chunk counts once per map text, however many of
// its claims cite it. seen is scratch space the caller reuses.
func mapTextSize(summary string, leaves []string, claimsByLeaf map[string][]*Claim, chunkText map[string]string, seen map[string]bool) int {
	clear(seen)
	size := len(summaryHeader) + len(summary)
	claims, chunks := 0, 0
	for _, leaf := range leaves {
		for _, c := range claimsByLeaf[leaf] {
			claims++
			size += len("\n- ") + len(c.Subject) + len(": ") + len(c.Description)
			if c.Object != "" {
				size += len(" -> ") + len(c.Object)
			}
			for _, id := range c.SourceChunkIDs {
				if text, ok := chunkText[id]; ok && !seen[id] {
					seen[id] = true
					chunks++
					size += len("\n- (") + len(id) + len(") ") + len(text)
				}
			}
		}
	}
	if claims > 0 {
		size += len(claimsHeader)
	}
	if chunks > 0 {
		size += len(excerptsHeader)
	}
	return size
}
