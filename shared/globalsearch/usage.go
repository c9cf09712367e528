package globalsearch

import (
	"math"

	"github.com/graphrag-global/graphrag-global/shared/tokens"
)

// Usage compares the input tokens each stage's calls were estimated at with
// the input tokens the model reported for them (docs/contract.md#usage), so
// a run on a real model shows how far its budgets held, and `globalsearch
// calibrate` can fit characters-per-token rates from recorded results.
type Usage struct {
	// ModelID names the model the calls went to, as the engine was given it
	// ("" when it was not); calibrate fits one model at a time.
	ModelID string `json:"modelId,omitempty"`
	// SystemPrompt counts the code points of the system prompt every call
	// sent outside the budgets: reported tokens include it, estimates do not.
	SystemPrompt CodePoints    `json:"systemPrompt"`
	Map          StageEstimate `json:"map"`
	Reduce       StageEstimate `json:"reduce"`
}

// CodePoints counts a text's code points as the estimate classes them
// (docs/contract.md#token-estimate).
type CodePoints struct {
	ASCII    int `json:"asciiCodePoints"`
	NonASCII int `json:"nonAsciiCodePoints"`
}

// StageEstimate is one stage's estimate against the model's report, over
// the calls that can be compared: those the model answered and reported
// input tokens for. A cached map answer cost no call, and a failed batch or
// reduce has no report, so neither is counted.
type StageEstimate struct {
	Calls                int `json:"calls"`
	EstimatedInputTokens int `json:"estimatedInputTokens"`
	ReportedInputTokens  int `json:"reportedInputTokens"`
	// Ratio is reported / estimated over those calls (0 with none): above 1,
	// the model counted more tokens than the budget was measured in.
	Ratio float64 `json:"ratio"`
	// WorstBatchRatio and WorstBatchIndex (map only) are the highest
	// batch's ratio and that batch (the first of equals).
	WorstBatchRatio float64 `json:"worstBatchRatio,omitempty"`
	WorstBatchIndex *int    `json:"worstBatchIndex,omitempty"`
}

// codePointsOf counts s.
func codePointsOf(s string) CodePoints {
	c := tokens.Of(s)
	return CodePoints{ASCII: c.ASCII, NonASCII: c.NonASCII}
}

// countCodePoints records with each batch the code points of its map
// prompt, the text EstimatedTokens measures (skeleton, "\n", content:
// rendering keeps every code point's class), so reduce can report them
// without reading the content again (docs/contract.md#usage).
func countCodePoints(plan *Plan) {
	base := tokens.Of(plan.MapSkeleton).Add(tokens.Count{ASCII: 1})
	for i := range plan.Batches {
		b := &plan.Batches[i]
		c := base.Add(tokens.Of(b.Content))
		b.ASCIICodePoints, b.NonASCIICodePoints = c.ASCII, c.NonASCII
	}
}

// recordUsage fills the result's per-batch code points and reported
// tokens and its usage diagnostics from the plan and the answers that
// reached the result.
func (e *Engine) recordUsage(r *reduceRun) {
	d := &r.res.Diagnostics
	reported := make(map[int]int, len(r.answers))
	for _, a := range r.answers {
		if !a.Cached && a.InputTokens > 0 {
			reported[a.BatchIndex] = a.InputTokens
		}
	}
	for i, b := range r.plan.Batches {
		if i < len(d.Batches) {
			d.Batches[i].ASCIICodePoints, d.Batches[i].NonASCIICodePoints = b.ASCIICodePoints, b.NonASCIICodePoints
			d.Batches[i].ReportedInputTokens = reported[b.Index]
		}
	}
	d.Usage = Usage{ModelID: e.ModelID, SystemPrompt: codePointsOf(e.prompts().System)}
	d.Usage.Map = mapEstimate(r.plan.Batches, reported)
	if d.Reduce.InputTokens > 0 && d.ReducePromptTokens > 0 {
		d.Usage.Reduce = StageEstimate{Calls: 1, EstimatedInputTokens: d.ReducePromptTokens,
			ReportedInputTokens: d.Reduce.InputTokens, Ratio: ratio(d.Reduce.InputTokens, d.ReducePromptTokens)}
	}
}

// mapEstimate compares every batch the model reported on.
func mapEstimate(batches []Batch, reported map[int]int) StageEstimate {
	var s StageEstimate
	for _, b := range batches {
		in, ok := reported[b.Index]
		if !ok || b.EstimatedTokens <= 0 {
			continue
		}
		s.Calls++
		s.EstimatedInputTokens += b.EstimatedTokens
		s.ReportedInputTokens += in
		if r := ratio(in, b.EstimatedTokens); s.WorstBatchIndex == nil || r > s.WorstBatchRatio {
			index := b.Index
			s.WorstBatchRatio, s.WorstBatchIndex = r, &index
		}
	}
	if s.Calls > 0 {
		s.Ratio = ratio(s.ReportedInputTokens, s.EstimatedInputTokens)
	}
	return s
}

// ratio is reported / estimated rounded to 4 decimals, so results read
// alike on every platform and print without float noise.
func ratio(reported, estimated int) float64 {
	return math.Round(float64(reported)/float64(estimated)*1e4) / 1e4
}
