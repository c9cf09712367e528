package globalsearch_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	gs "github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

// synthetic builds n map calls whose model counts ascii/a + nonASCII/b
// tokens, scaled by a noise factor in [1-noise, 1+noise], over batches
// whose non-ASCII share is drawn from [minShare, maxShare].
func synthetic(n int, a, b, noise, minShare, maxShare float64) []gs.CalibrationSample {
	rng := rand.New(rand.NewPCG(1, 2))
	out := make([]gs.CalibrationSample, n)
	for i := range out {
		total := 20000 + rng.IntN(10000)
		share := minShare + (maxShare-minShare)*rng.Float64()
		nonASCII := int(share * float64(total))
		ascii := total - nonASCII
		exact := float64(ascii)/a + float64(nonASCII)/b
		f := 1 + noise*(2*rng.Float64()-1)
		out[i] = gs.CalibrationSample{ASCII: ascii, NonASCII: nonASCII, Reported: int(math.Round(exact * f)),
			Estimated: int(math.Ceil(float64(ascii)/gs.EstimateASCIIRate + float64(nonASCII)/gs.EstimateNonASCIIRate))}
	}
	return out
}

func TestCalibrateRecoversRates(t *testing.T) {
	tests := []struct {
		name              string
		samples           []gs.CalibrationSample
		wantA, wantB      float64
		tolerance         float64 // relative, on each rate
		fitA, fitB        bool
		minRoom, maxRoom  float64 // the headroom's range
		wantEstimateAbove float64 // the estimate's overall ratio exceeds this
	}{
		{name: "o200k-like rates, exact counts", samples: synthetic(200, 4.0, 1.3, 0, 0, 0.9),
			wantA: 4.0, wantB: 1.3, tolerance: 0.005, fitA: true, fitB: true, minRoom: 0.99, maxRoom: 1.01, wantEstimateAbove: 1.05},
		{name: "cl100k-like rates, 5% noise", samples: synthetic(400, 3.9, 0.96, 0.05, 0.1, 0.9),
			wantA: 3.9, wantB: 0.96, tolerance: 0.03, fitA: true, fitB: true, minRoom: 1.03, maxRoom: 1.07, wantEstimateAbove: 1.3},
		{name: "ASCII only: the non-ASCII rate is held at the estimate's", samples: synthetic(100, 3.6, 1, 0.02, 0, 0),
			wantA: 3.6, wantB: gs.EstimateNonASCIIRate, tolerance: 0.01, fitA: true, minRoom: 1.0, maxRoom: 1.03},
		{name: "one mix everywhere: the ASCII rate is held at the estimate's", samples: synthetic(100, 4.0, 1.1, 0, 0.6, 0.6),
			wantA: gs.EstimateASCIIRate, wantB: 1.1, tolerance: 0.01, fitB: true, minRoom: 0.99, maxRoom: 1.01, wantEstimateAbove: 1.2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := gs.Calibrate(tc.samples, 0.99)
			require.NoError(t, err)
			assert.Equal(t, len(tc.samples), c.Calls)
			assert.InEpsilon(t, tc.wantA, c.ASCIIRate, tc.tolerance)
			assert.InEpsilon(t, tc.wantB, c.NonASCIIRate, tc.tolerance)
			assert.Equal(t, tc.fitA, c.ASCIIFitted)
			assert.Equal(t, tc.fitB, c.NonASCIIFitted)
			assert.GreaterOrEqual(t, c.Headroom, tc.minRoom)
			assert.LessOrEqual(t, c.Headroom, tc.maxRoom)
			assert.GreaterOrEqual(t, c.WorstRatio, c.Headroom)
			assert.Greater(t, c.Estimate.Ratio, tc.wantEstimateAbove)
			assert.GreaterOrEqual(t, c.Estimate.Worst, c.Estimate.Headroom)
		})
	}
}

// The headroom is the nearest-rank quantile: one call in a hundred that the
// model counted half again as many tokens for sets the worst ratio, and the
// headroom only when the quantile covers every call.
func TestCalibrateHeadroomQuantile(t *testing.T) {
	samples := synthetic(100, 4, 1.3, 0, 0, 0.5)
	samples[37].Reported = samples[37].Reported * 3 / 2
	tests := []struct {
		quantile float64
		high     bool
	}{{0.99, false}, {0.5, false}, {1, true}}
	for _, tc := range tests {
		c, err := gs.Calibrate(samples, tc.quantile)
		require.NoError(t, err)
		assert.InDelta(t, 1.5, c.WorstRatio, 0.03, "quantile %v", tc.quantile)
		if tc.high {
			assert.Equal(t, c.WorstRatio, c.Headroom)
		} else {
			assert.Less(t, c.Headroom, 1.05, "quantile %v", tc.quantile)
		}
	}
}

func TestCalibrateRefuses(t *testing.T) {
	tests := []struct {
		name     string
		samples  []gs.CalibrationSample
		quantile float64
		want     string
	}{
		{"no samples", nil, 0.99, "no map call to calibrate from"},
		{"quantile 0", synthetic(3, 4, 1.8, 0, 0, 0.5), 0, "quantile 0 is not in (0, 1]"},
		{"quantile above 1", synthetic(3, 4, 1.8, 0, 0, 0.5), 1.5, "quantile 1.5 is not in (0, 1]"},
		{"quantile NaN", synthetic(3, 4, 1.8, 0, 0, 0.5), math.NaN(), "is not in (0, 1]"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := gs.Calibrate(tc.samples, tc.quantile)
			require.Error(t, err)
			assert.Equal(t, gs.KindInvalidInput, gs.KindOf(err))
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

// calibrationResult is a result of model whose batches report reported[i]
// (0: failed or cached) over code points (1000+i, 10*i).
func calibrationResult(model string, reported ...int) gs.Result {
	var r gs.Result
	r.Diagnostics.Usage = gs.Usage{ModelID: model, SystemPrompt: gs.CodePoints{ASCII: 50, NonASCII: 1}}
	for i, in := range reported {
		r.Diagnostics.Batches = append(r.Diagnostics.Batches, gs.BatchSummary{
			EstimatedTokens: 300 + i, ASCIICodePoints: 1000 + i, NonASCIICodePoints: 10 * i, ReportedInputTokens: in})
	}
	return r
}

func TestCalibrationSamples(t *testing.T) {
	legacy := calibrationResult("m1", 400)
	legacy.Diagnostics.Batches[0].ASCIICodePoints = 0 // a plan that recorded no code points
	tests := []struct {
		name        string
		results     []gs.Result
		model       string
		want        []gs.CalibrationSample
		wantModel   string
		wantSkipped int
		wantErr     string
	}{
		{name: "reported batches, with the system prompt's code points",
			results: []gs.Result{calibrationResult("m1", 400, 0, 420)}, wantModel: "m1",
			want: []gs.CalibrationSample{{ASCII: 1050, NonASCII: 1, Reported: 400, Estimated: 300}, {ASCII: 1052, NonASCII: 21, Reported: 420, Estimated: 302}}},
		{name: "offline results are skipped",
			results: []gs.Result{calibrationResult(gs.OfflineModelID, 300), calibrationResult("m1", 0, 410)}, wantModel: "m1", wantSkipped: 1,
			want: []gs.CalibrationSample{{ASCII: 1051, NonASCII: 11, Reported: 410, Estimated: 301}}},
		{name: "--model picks one model",
			results: []gs.Result{calibrationResult("m1", 400), calibrationResult("m2", 500)}, model: "m2", wantModel: "m2",
			want: []gs.CalibrationSample{{ASCII: 1050, NonASCII: 1, Reported: 500, Estimated: 300}}},
		{name: "two models without --model",
			results: []gs.Result{calibrationResult("m1", 400), calibrationResult("", 500)},
			wantErr: "the results are of 2 models ((not recorded), m1): calibrate one at a time with --model"},
		{name: "nothing reported",
			results: []gs.Result{calibrationResult("m1", 0, 0), legacy},
			wantErr: "no map call to calibrate from in 2 results"},
		{name: "only offline",
			results: []gs.Result{calibrationResult(gs.OfflineModelID, 300)}, wantSkipped: 1,
			wantErr: "every result is of the offline model"},
		{name: "only offline, as a versioned id",
			results: []gs.Result{calibrationResult(gs.OfflineModelID+"/2", 300)}, wantSkipped: 1,
			wantErr: "every result is of the offline model"},
		{name: "no result at all",
			wantErr: "no map call to calibrate from in 0 results"},
		{name: "no result of the model asked for",
			results: []gs.Result{calibrationResult("m1", 300)}, model: "m3",
			wantErr: "no map call to calibrate from"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, model, skipped, err := gs.CalibrationSamples(tc.results, tc.model)
			assert.Equal(t, tc.wantSkipped, skipped)
			if tc.wantErr != "" {
				require.Error(t, err)
				assert.Equal(t, gs.KindInvalidInput, gs.KindOf(err))
				assert.Contains(t, err.Error(), tc.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
			assert.Equal(t, tc.wantModel, model)
		})
	}
}
