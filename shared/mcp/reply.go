package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

// The values of global_search's detail argument.
const (
	detailCompact = "compact"
	detailFull    = "full"
)

// searchOutput is global_search's reply. It is compact unless the call
// asks for detail "full": an agent reads the whole reply into its context,
// and the claim and chunk ids of every cited community outweigh the answer
// many times over (docs/contract.md#local).
type searchOutput struct {
	QueryID     string              `json:"queryId"`
	Status      globalsearch.Status `json:"status"`
	Answer      string              `json:"answer"`
	Note        string              `json:"note,omitempty" jsonschema:"why a search found nothing to search: the levels or namespaces that exist"`
	Coverage    any                 `json:"coverage,omitempty" jsonschema:"how much of the index the answer rests on (the result's diagnostics.coverage)"`
	Communities []citedCommunity    `json:"communities" jsonschema:"the communities the answer cites, in first-cited order"`
	// Citations are the cited communities' claim and chunk ids, with
	// detail "full" only.
	Citations        []globalsearch.Citation `json:"citations,omitempty" jsonschema:"detail \"full\" only: the claim and source-chunk ids of each cited community"`
	FailedMapBatches int                     `json:"failedMapBatches,omitempty"`
	ModelCalls       int                     `json:"modelCalls"`
	CacheHits        int                     `json:"cacheHits"`
	// ReduceRounds and ReduceHint say what the run's reduce did with the
	// map's useful answers (docs/contract.md#reduce-rounds), as run's
	// status and coverage lines do.
	ReduceRounds int    `json:"reduceRounds,omitempty" jsonschema:"how many reduce rounds ran, the final call counting as one: more than 1 only with reduceMode \"tree\""`
	ReduceHint   string `json:"reduceHint,omitempty" jsonschema:"when one reduce prompt left useful map answers out for its budget: how many, and that reduceMode \"tree\" would keep them"`
	// Read tells a compact reply's reader how to follow an id (readHint).
	Read string `json:"read,omitempty"`
}

// citedCommunity is a community the answer cites, named as the index
// names it.
type citedCommunity struct {
	ID    string `json:"id"`
	Title string `json:"title,omitempty"`
}

// planToolOutput is plan_search's reply: the fields of the domain's plan
// report (docs/contract.md#plan-report) an agent weighs before a search,
// copied, not computed; the batches' text, most of a report, stays out of
// the agent's context.
type planToolOutput struct {
	Summaries       int `json:"summaries"`
	Batches         int `json:"batches"`
	EstimatedTokens int `json:"estimatedTokens" jsonschema:"estimated input tokens of every map call"`
	MaxModelCalls   int `json:"maxModelCalls" jsonschema:"two attempts per map batch and two for reduce, and with selection dynamic its most rating calls"`
	// RatingTokens is what a dynamic selection's rating may read besides
	// the map (docs/contract.md#dynamic-selection).
	RatingTokens int      `json:"ratingTokens,omitempty" jsonschema:"with selection dynamic: the most estimated input tokens its rating calls read, every community rated, each batch once"`
	CostUSD      *float64 `json:"costUsd,omitempty" jsonschema:"the most the search can cost in USD, one attempt per call; only when prices are set"`
	LevelUsed    string   `json:"levelUsed,omitempty" jsonschema:"with level \"auto\": what it chose, \"leaf\" or \"graphrag:N\" (GraphRAG's community level N), a level to send again"`
	// SeedDerivation is where a seed under seedPolicy "namespace" came
	// from (docs/contract.md#seed-policy), with the seed.
	ShuffleSeed    int64                        `json:"shuffleSeed,omitempty" jsonschema:"with seedPolicy \"namespace\": the seed derived from the namespace version, which every question over it shares"`
	SeedDerivation *globalsearch.SeedDerivation `json:"seedDerivation,omitempty" jsonschema:"with seedPolicy \"namespace\": the namespace, its version and summaries digest the seed was derived from"`
}

// parseDetail reads global_search's detail argument; full says the reply
// carries the citations' claim and chunk ids.
func parseDetail(s string) (full bool, err error) {
	switch s {
	case "", detailCompact:
		return false, nil
	case detailFull:
		return true, nil
	}
	return false, globalsearch.Errorf(globalsearch.KindInvalidInput, "detail must be %q or %q, got %q", detailCompact, detailFull, s)
}

// reply is a result as global_search returns it.
func (t *tools) reply(ctx context.Context, idx globalsearch.Index, res globalsearch.Result, full bool) searchOutput {
	out := searchOutput{
		QueryID: res.QueryID, Status: res.Status, Answer: res.Answer,
		Note: noResultsNote(res), Coverage: coverageOf(res.Diagnostics),
		Communities:      make([]citedCommunity, len(res.Citations)),
		FailedMapBatches: res.FailedMapBatches,
		ModelCalls:       res.Diagnostics.ModelCalls, CacheHits: res.Diagnostics.Map.CacheHits,
		ReduceRounds: res.Diagnostics.Reduce.Rounds, ReduceHint: reduceHint(res.Diagnostics.Coverage),
	}
	titles := t.titles(ctx, idx, res)
	for i, c := range res.Citations {
		out.Communities[i] = citedCommunity{ID: c.CommunityID, Title: titles[c.CommunityID]}
	}
	if full {
		out.Citations = res.Citations
	} else if len(out.Communities) > 0 {
		out.Read = readHint
	}
	return out
}

// titles are the titles of the communities res cites, read from the
// namespace after the search (the result names the communities, not their
// titles). A failed read leaves the titles out, logged on stderr: the
// answer is already paid for.
func (t *tools) titles(ctx context.Context, idx globalsearch.Index, res globalsearch.Result) map[string]string {
	if len(res.Citations) == 0 {
		return nil
	}
	summaries, err := readSummaries(ctx, idx, res.Namespace)
	if err != nil {
		fmt.Fprintf(t.Log, "globalsearch mcp: %s: community titles left out: %v\n", res.QueryID, err)
		return nil
	}
	titles := make(map[string]string, len(summaries))
	for _, s := range summaries {
		titles[s.ID] = s.Title
	}
	return titles
}

func readSummaries(ctx context.Context, idx globalsearch.Index, namespace string) ([]globalsearch.Summary, error) {
	snap, err := idx.Open(ctx, namespace)
	if err != nil {
		return nil, err
	}
	return snap.Summaries(ctx)
}

// noResultsNote says what exists when a search had nothing to search, as
// run's status line does: the levels of the namespace when the level has
// none, the namespaces of the index when the namespace is empty.
func noResultsNote(res globalsearch.Result) string {
	d := res.Diagnostics
	var notes []string
	if len(d.AvailableLevels) > 0 {
		notes = append(notes, fmt.Sprintf("level %s holds no summaries; levels that exist: %s", res.CommunityLevel, globalsearch.LevelList(d.AvailableLevels)))
	}
	if d.EmptyNamespace {
		notes = append(notes, globalsearch.EmptyNamespaceNote(res.Namespace, d.AvailableNamespaces))
	}
	return strings.Join(notes, "; ")
}

// coverageOf is the result's diagnostics.coverage as the JSON result holds
// it (docs/contract.md#result), or nil for a result without one.
func coverageOf(d globalsearch.Diagnostics) any {
	data, err := json.Marshal(d)
	if err != nil {
		return nil
	}
	var v struct {
		Coverage any `json:"coverage"`
	}
	if err := json.Unmarshal(data, &v); err != nil {
		return nil
	}
	return v.Coverage
}

// reduceHint is the coverage line's hint (Coverage.LineWithReduceHint) in
// the tool's own terms: an agent sends the reduceMode argument, not the
// CLI's flag. "" when nothing was skipped or the reduce ran in rounds.
func reduceHint(c globalsearch.Coverage) string {
	m := c.MapAnswers
	if m == nil || m.SkippedForBudget == 0 || m.InRounds {
		return ""
	}
	noun := "useful answers"
	if m.SkippedForBudget == 1 {
		noun = "useful answer"
	}
	return fmt.Sprintf(`%d %s skipped for the reduce budget; reduceMode "tree" would keep them`, m.SkippedForBudget, noun)
}
