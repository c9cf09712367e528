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

// PrepareOutput is what the prepare step hands on: small enough for a Step
// Functions state (SPEC §8), with the batches themselves in the runs store.
type PrepareOutput struct {
	QueryID      string `json:"queryId"`
	BatchCount   int    `json:"batchCount"`
	BatchIndexes []int  `json:"batchIndexes"`
}

// Prepare plans a search (SPEC §4) and saves the plan in the runs store.
func (e *Engine) Prepare(ctx context.Context, p Params) (PrepareOutput, error) {
	start := time.Now()
	plan, err := e.Plan(ctx, p)
	if err != nil {
		e.logger().LogAttrs(ctx, slogError, "prepare failed", stepAttrs(p.QueryID, "prepare", start, "status", "failed", "error", err.Error())...)
		return PrepareOutput{}, err
	}
	plan.CreatedAt = e.now()
	if err := e.Runs.SavePlan(ctx, plan); err != nil {
		return PrepareOutput{}, fmt.Errorf("save plan of %s: %w", p.QueryID, err)
	}
	out := PrepareOutput{QueryID: p.QueryID, BatchCount: len(plan.Batches), BatchIndexes: make([]int, len(plan.Batches))}
	for i := range out.BatchIndexes {
		out.BatchIndexes[i] = i
	}
	e.logger().LogAttrs(ctx, slogInfo, "prepared", stepAttrs(p.QueryID, "prepare", start,
		"summaries", plan.SummaryCount, "batches", len(plan.Batches), "status", "ok")...)
	return out, nil
}

// Plan builds the batches of a search without saving or calling anything:
// prepare's work, and the CLI's dry run.
func (e *Engine) Plan(ctx context.Context, p Params) (Plan, error) {
	prompts := e.prompts()
	skeleton := prompts.Map.Skeleton(p.Query)
	// The budget check needs no data, so bad input costs no read (SPEC §4.3.1).
	if _, err := batch.Pack(skeleton, p.MapPromptBudget(), nil); err != nil {
		return Plan{}, &Error{Kind: KindInvalidInput, Err: err}
	}
	texts, plan, err := e.mapTexts(ctx, p)
	if err != nil {
		return Plan{}, err
	}
	if p.Shuffle {
		shuffle(texts, p.ShuffleSeed)
	}
	packed, err := batch.Pack(skeleton, p.MapPromptBudget(), texts)
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
	plan.Batches = make([]Batch, len(packed))
	for i, b := range packed {
		plan.Batches[i] = Batch{Index: i, CommunityIDs: b.IDs, EstimatedTokens: b.Tokens, Content: b.Content}
	}
	return plan, nil
}

// shuffle is Fisher-Yates as SPEC §4.3.2 writes it, over a PCG generator so
// a recorded seed replays the same order on every platform.
func shuffle(items []batch.Item, seed int64) {
	rng := rand.New(rand.NewPCG(uint64(seed), 0))
	for i := len(items) - 1; i > 0; i-- {
		j := rng.IntN(i + 1)
		items[i], items[j] = items[j], items[i]
	}
}

// mapTexts loads the namespace and builds the map text of every selected
// summary (SPEC §4.1, §4.2), in id order.
func (e *Engine) mapTexts(ctx context.Context, p Params) ([]batch.Item, Plan, error) {
	plan := Plan{Params: p}
	summaries, err := e.Index.Summaries(ctx, p.Namespace)
	if err != nil {
		return nil, plan, fmt.Errorf("load summaries of %s: %w", p.Namespace, err)
	}
	if len(summaries) == 0 {
		plan.EmptyNamespace = true
		plan.AvailableNamespaces = e.namespaces(ctx, p.Namespace)
		return nil, plan, nil
	}
	h, err := newHierarchy(summaries)
	if err != nil {
		return nil, plan, err
	}
	selected := h.selectSummaries(p.CommunityLevel)
	plan.SummaryCount = len(selected)
	if len(selected) == 0 {
		if p.CommunityLevel != LeafLevel {
			plan.AvailableLevels = h.levels()
		}
		return nil, plan, nil
	}
	claims, err := e.Index.Claims(ctx, p.Namespace)
	if err != nil {
		return nil, plan, fmt.Errorf("load claims of %s: %w", p.Namespace, err)
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
		chunks, err := e.Index.Chunks(ctx, p.Namespace, cited)
		if err != nil {
			return nil, plan, fmt.Errorf("load cited chunks of %s: %w", p.Namespace, err)
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

	items := make([]batch.Item, len(selected))
	for i, s := range selected {
		items[i] = batch.Item{ID: s.ID, Text: mapText(s.Summary, leavesOf[i], claimsByLeaf, chunkText)}
	}
	return items, plan, nil
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

// mapText renders one summary with its claims and excerpts (SPEC §4.2).
func mapText(summary string, leaves []string, claimsByLeaf map[string][]*Claim, chunkText map[string]string) string {
	var b strings.Builder
	b.Grow(mapTextSize(summary, leaves, claimsByLeaf, chunkText))
	b.WriteString("[Community summary]\n")
	b.WriteString(summary)
	var chunkIDs []string
	seen := map[string]bool{}
	first := true
	for _, leaf := range leaves {
		for _, c := range claimsByLeaf[leaf] {
			if first {
				b.WriteString("\n\n[Supporting claims]")
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
		b.WriteString("\n\n[Source excerpts]")
		for _, id := range chunkIDs {
			b.WriteString("\n- (")
			b.WriteString(id)
			b.WriteString(") ")
			b.WriteString(chunkText[id])
		}
	}
	return b.String()
}

// mapTextSize is an upper bound of mapText's length, so the text is built in
// one allocation: map texts are most of what prepare allocates.
func mapTextSize(summary string, leaves []string, claimsByLeaf map[string][]*Claim, chunkText map[string]string) int {
	size := len(summary) + 64
	for _, leaf := range leaves {
		for _, c := range claimsByLeaf[leaf] {
			size += len(c.Subject) + len(c.Object) + len(c.Description) + 10
			for _, id := range c.SourceChunkIDs {
				size += len(id) + len(chunkText[id]) + 6
			}
		}
	}
	return size
}
