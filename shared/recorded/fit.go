package recorded

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

// Fit is a calibration and what it was fitted from: what calibrate
// prints, its fields named as its --json shows them
// (docs/contract.md#calibrate).
type Fit struct {
	ModelID string `json:"modelId,omitempty"`
	Results int    `json:"results"`
	// CountedPlan says the calls are a plan's map prompts counted with
	// the model's CountTokens (CountedFit), not recorded results.
	CountedPlan bool `json:"countedPlan,omitempty"`
	// SkippedOfflineResults are results of the offline model, which
	// reports the estimate and so has no rate to fit.
	SkippedOfflineResults int `json:"skippedOfflineResults"`
	globalsearch.Calibration
}

// ReadFiles reads the results of each file in turn (ReadFile), so a bad
// file is refused before the caller reads anything else.
func ReadFiles(names []string, stdin io.Reader) ([]globalsearch.Result, error) {
	var results []globalsearch.Result
	for _, name := range names {
		rs, err := ReadFile(name, stdin)
		if err != nil {
			return nil, err
		}
		results = append(results, rs...)
	}
	return results, nil
}

// FitResults fits the map calls of the results of model
// (globalsearch.CalibrationSamples: "" takes the one model the results
// are of) so that quantile of them fit.
func FitResults(results []globalsearch.Result, model string, quantile float64) (Fit, error) {
	samples, modelID, skipped, err := globalsearch.CalibrationSamples(results, model)
	if err != nil {
		return Fit{}, err
	}
	c, err := globalsearch.Calibrate(samples, quantile)
	if err != nil {
		return Fit{}, err
	}
	return Fit{ModelID: modelID, Results: len(results), SkippedOfflineResults: skipped, Calibration: c}, nil
}

// CountedFit fits p's map prompts as m's own tokenizer counts them
// (Engine.CountedSamples): no inference, so nothing recorded is needed.
// m must count tokens; modelID names it.
func CountedFit(ctx context.Context, e *globalsearch.Engine, p globalsearch.Params, m globalsearch.Model, modelID string, quantile float64) (Fit, error) {
	counter, ok := m.(globalsearch.TokenCounter)
	if !ok {
		return Fit{}, fmt.Errorf("model %s counts no tokens", modelID)
	}
	samples, err := e.CountedSamples(ctx, p, counter)
	if err != nil {
		return Fit{}, err
	}
	c, err := globalsearch.Calibrate(samples, quantile)
	if err != nil {
		return Fit{}, err
	}
	return Fit{ModelID: strings.TrimSpace(modelID), CountedPlan: true, Calibration: c}, nil
}
