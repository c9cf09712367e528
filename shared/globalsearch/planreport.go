package globalsearch

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// PlanReport is a plan as `plan`, serve's plans route, the MCP plan tool
// and prepare show it (docs/contract.md#plan-report): what it will send,
// its worst case as the ceilings hold it, its coverage and how the
// deployed state machine would run it. Engine.Report computes it once, so
// no edge adds anything to it.
type PlanReport struct {
	SummaryCount       int `json:"summaryCount"`
	BatchCount         int `json:"batchCount"`
	MapPromptBudget    int `json:"mapPromptBudget"`
	ReducePromptBudget int `json:"reducePromptBudget"`
	// Tokenizer counted the budgets (docs/contract.md#tokenizer); absent for the estimate.
	Tokenizer   string `json:"tokenizer,omitempty"`
	MapSkeleton string `json:"mapSkeleton"`
	ShuffleSeed int64  `json:"shuffleSeed"`
	// SeedDerivation is where a seed derived from the namespace came from
	// (docs/contract.md#seed-policy); absent otherwise.
	SeedDerivation *SeedDerivation `json:"seedDerivation,omitempty"`
	// Batching is "stable" (docs/contract.md#stable-batching); absent for
	// the shuffle, so a default plan prints as it did.
	Batching                string `json:"batching,omitempty"`
	EstimatedMapInputTokens int    `json:"estimatedMapInputTokens"`
	// MaxModelCalls is WorstCase.Calls(), and ModelCallCeiling the most
	// the run may make (docs/contract.md#model-call-ceiling): a plan over
	// it is refused, so MaxModelCalls never exceeds it.
	MaxModelCalls    int `json:"maxModelCalls"`
	ModelCallCeiling int `json:"modelCallCeiling"`
	// WorstCase is what the ceilings refuse at (docs/contract.md#worst-case).
	WorstCase WorstCase `json:"worstCase"`
	// MapMode is how the deployed state machine would run the plan
	// (MapMode): inline or distributed.
	MapMode string `json:"mapMode"`
	// MapConcurrency and ETASeconds are the map concurrency and the time
	// of a run at the quota or call time given (docs/contract.md#quota);
	// absent when none is, so that such a plan prints as it always did.
	MapConcurrency int `json:"mapConcurrency,omitempty"`
	ETASeconds     int `json:"etaSeconds,omitempty"`
	// Selection is a dynamic selection's worst case and the leaf plan
	// its batches are (docs/contract.md#dynamic-selection).
	Selection SelectionReport `json:"selection,omitzero"`
	IndexNotes
	// Diagnostics holds the plan's coverage where a result holds its own
	// (docs/contract.md#coverage), so one reader serves both.
	Diagnostics PlanDiagnostics `json:"diagnostics"`
	// Cost is what the plan may cost per stage, when prices are set
	// (docs/contract.md#cost).
	Cost *PlanCost `json:"cost,omitempty"`
	// Batches is the last field: the CLI streams them after the rest.
	Batches []PlanBatch `json:"batches"`
}

// PlanDiagnostics is what a plan reports where a result reports it.
type PlanDiagnostics struct {
	Coverage Coverage `json:"coverage"`
	// Changes is what changed since the last run of the plan's standing
	// question (docs/contract.md#standing-questions).
	Changes *Changes `json:"changes,omitempty"`
	// AutoLevel is the ladder of communityLevel "auto" and its choice
	// (docs/contract.md#auto-level), where a result holds it.
	AutoLevel *LevelChoice `json:"autoLevel,omitempty"`
	// GraphRAGLevel is what communityLevel "graphrag:N" selected
	// (docs/contract.md#graphrag-level).
	GraphRAGLevel *LevelSplit `json:"graphragLevel,omitempty"`
}

// PlanBatch is one map batch as a plan reports it.
type PlanBatch struct {
	CommunityIDs    []string `json:"communityIds"`
	EstimatedTokens int      `json:"estimatedTokens"`
	Content         string   `json:"content"`
}

// PlanCost is what a plan may cost (docs/contract.md#cost) over what its
// worst case counts: per stage with one attempt per call and every output
// reserve spent, rating calls in the map stage, and WorstCase, with every
// retry, which maxCostUsd is held to (WorstCase.CostUSD).
type PlanCost struct {
	Map       float64 `json:"mapUsd"`
	Reduce    float64 `json:"reduceUsd"`
	Total     float64 `json:"totalUsd"`
	WorstCase float64 `json:"worstCaseUsd"`
}

// Report is plan, from Engine.Plan, as the edges show it.
func (e *Engine) Report(plan Plan) PlanReport {
	p := plan.Params
	s := e.upFront(plan)
	out := PlanReport{
		SummaryCount: plan.SummaryCount, BatchCount: len(plan.Batches),
		MapPromptBudget: p.MapPromptBudget(), ReducePromptBudget: p.ReducePromptBudget(),
		Tokenizer: p.Tokenizer, MapSkeleton: plan.MapSkeleton, ShuffleSeed: p.ShuffleSeed, SeedDerivation: plan.SeedDerivation,
		EstimatedMapInputTokens: plan.MapInputTokens(),
		WorstCase:               s.worstCase(e.Prices, p),
		ModelCallCeiling:        p.MaxModelCalls,
		IndexNotes:              plan.IndexNotes,
		Diagnostics:             PlanDiagnostics{Coverage: plan.Coverage, Changes: plan.Changes, AutoLevel: plan.AutoLevel, GraphRAGLevel: plan.GraphRAGLevel},
		Batches:                 make([]PlanBatch, len(plan.Batches)),
	}
	out.MaxModelCalls = out.WorstCase.Calls()
	if p.Batching == BatchingStable {
		out.Batching = p.Batching
	}
	for i, b := range plan.Batches {
		out.Batches[i] = PlanBatch{CommunityIDs: b.CommunityIDs, EstimatedTokens: b.EstimatedTokens, Content: b.Content}
	}
	// The mode's worst case is every leaf mapped after every community
	// rated: the dry run's batches are the plan of every leaf.
	ratingBatches := 0
	if plan.Selection != nil {
		out.Selection = *plan.Selection
		ratingBatches = plan.Selection.mostRatingBatches()
	}
	out.MapMode = MapMode(len(plan.Batches), ratingBatches+s.rounds.calls(), 0)
	if e.Quota != (Quota{}) {
		out.MapConcurrency, out.ETASeconds = plan.MapConcurrency, plan.ETASeconds
	}
	if e.Prices != nil {
		once := s.made(e.Prices, p, 1, 1, 1)
		out.Cost = &PlanCost{Map: once.RatingUSD + once.MapUSD, Reduce: once.ReduceUSD,
			Total: once.CostUSD(), WorstCase: out.WorstCase.CostUSD()}
	}
	return out
}

// The ways the deployed state machine runs a plan's map batches
// (prepare's output names one; the ASL's MapMode Choice reads it).
const (
	// ModeInline runs every batch as an iteration of the inline Map, inside
	// the execution's own history.
	ModeInline = "inline"
	// ModeDistributed runs every batch as a child execution of a
	// Distributed Map, each with its own history; a failed batch is
	// recorded in the runs table instead of returned.
	ModeDistributed = "distributed"
)

// InlineMaxBatches is the most batches the deployed inline Map runs, map
// and rating batches together (docs/contract.md#plan-limits):
// shared/workflow derives it from the execution's history limit, and the
// statemachine tests count it from the ASL.
const InlineMaxBatches = 600

// DefaultMaxBatches is the largest plan a deployment runs when it sets no
// other (template parameter MaxBatches; shared/workflow names it too).
const DefaultMaxBatches = 20_000

// MapModeLine says how a deployment would run the plan: its MapMode, the
// inline Map's limit and, past the default MaxBatches, that a deployment
// left at that default refuses it (plan prints it after "on AWS: ").
func (r PlanReport) MapModeLine() string {
	line := fmt.Sprintf("%s Map (the inline Map runs at most %d batches)", r.MapMode, InlineMaxBatches)
	if r.BatchCount > DefaultMaxBatches {
		line += fmt.Sprintf("; refused by a deployment with the default MaxBatches %d", DefaultMaxBatches)
	}
	return line
}

// MapMode is how the deployed state machine runs mapBatches map batches
// after a dynamic selection of at most ratingBatches rating batches (0 for
// any other plan): inline while both fit the inline Map's history budget,
// inlineMax (0 for InlineMaxBatches), since a selection's rating batches
// are iterations of the same execution's history; else distributed
// (docs/contract.md#plan-limits). prepare and the plan report both ask it.
func MapMode(mapBatches, ratingBatches, inlineMax int) string {
	if inlineMax <= 0 {
		inlineMax = InlineMaxBatches
	}
	if mapBatches+ratingBatches > inlineMax {
		return ModeDistributed
	}
	return ModeInline
}

// SizingLine is plan's line of concurrency and time under quota q, whose
// output tokens count weight times (OutputWeight); "" when q states no
// quota (docs/contract.md#quota).
func (r PlanReport) SizingLine(q Quota, weight int) string {
	if q == (Quota{}) {
		return ""
	}
	var limits []string
	if q.TokensPerMinute > 0 {
		limits = append(limits, fmt.Sprintf("%d tokens", q.TokensPerMinute))
	}
	if q.RequestsPerMinute > 0 {
		limits = append(limits, fmt.Sprintf("%d requests", q.RequestsPerMinute))
	}
	at := "at "
	if len(limits) > 0 {
		at += strings.Join(limits, " and ") + " a minute and "
	}
	at += strconv.FormatFloat(q.AssumedCallSeconds(), 'f', -1, 64) + " s a call"
	if q.TokensPerMinute > 0 && weight > 1 {
		at += fmt.Sprintf(" (output tokens count %dx)", weight)
	}
	return fmt.Sprintf("%s: map concurrency %d, about %s with the reduce", at, r.MapConcurrency, time.Duration(r.ETASeconds)*time.Second)
}
