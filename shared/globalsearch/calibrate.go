package globalsearch

import (
	"cmp"
	"math"
	"slices"
	"strings"
)

// CalibrationSample is one map call a calibration learns from
// (docs/contract.md#calibrate): the code points of everything the call
// sent (map prompt and system prompt), the input tokens the model
// reported for it, and the estimate its batch was packed with.
type CalibrationSample struct {
	ASCII, NonASCII int
	Reported        int
	Estimated       int
}

// The estimate's rates (docs/contract.md#token-estimate), which a rate the
// samples cannot fit is held at.
const (
	EstimateASCIIRate    = 4.0
	EstimateNonASCIIRate = 1.8
)

// OfflineModelID is the model id of the offline model, which reports the
// estimate itself: its results have nothing to teach a calibration. A run
// records it with its rules' version ("offline/2", the map-cache id).
const OfflineModelID = "offline"

// IsOfflineModelID reports whether id names the offline model, of any version.
func IsOfflineModelID(id string) bool {
	return id == OfflineModelID || strings.HasPrefix(id, OfflineModelID+"/")
}

// CalibrationSamples gathers the map calls of results that a calibration
// can compare: batches whose model reported input tokens and whose plan
// recorded code points. Results of the offline model are left out (skipped
// counts them). model selects the results of one model id; "" takes every
// result, which must then name one model, so that the rates of two
// tokenizers are never averaged. No sample at all is invalid input.
func CalibrationSamples(results []Result, model string) (samples []CalibrationSample, modelID string, skipped int, err error) {
	models := map[string]bool{}
	var kept []Result
	for _, r := range results {
		id := r.Diagnostics.Usage.ModelID
		switch {
		case IsOfflineModelID(id):
			skipped++
		case model == "" || id == model:
			models[id] = true
			kept = append(kept, r)
		}
	}
	if len(models) > 1 {
		names := slices.Sorted(func(yield func(string) bool) {
			for id := range models {
				if !yield(cmp.Or(id, "(not recorded)")) {
					return
				}
			}
		})
		return nil, "", skipped, Errorf(KindInvalidInput,
			"the results are of %d models (%s): calibrate one at a time with --model", len(names), strings.Join(names, ", "))
	}
	for _, r := range kept {
		modelID = r.Diagnostics.Usage.ModelID
		sys := r.Diagnostics.Usage.SystemPrompt
		for _, b := range r.Diagnostics.Batches {
			if b.ReportedInputTokens <= 0 || b.ASCIICodePoints+b.NonASCIICodePoints == 0 {
				continue
			}
			samples = append(samples, CalibrationSample{
				ASCII: b.ASCIICodePoints + sys.ASCII, NonASCII: b.NonASCIICodePoints + sys.NonASCII,
				Reported: b.ReportedInputTokens, Estimated: b.EstimatedTokens,
			})
		}
	}
	switch {
	case len(results) > 0 && skipped == len(results):
		return nil, "", skipped, Errorf(KindInvalidInput,
			"every result is of the offline model, which reports the estimate as its usage: calibrate the results of a real model")
	case len(samples) == 0:
		return nil, modelID, skipped, Errorf(KindInvalidInput,
			"no map call to calibrate from in %s: a call counts when the model answered it and reported its input tokens "+
				"(cached answers, failed batches, the offline model and results recorded before usage was do not)",
			Plural(len(results), "result", "results"))
	}
	return samples, modelID, skipped, nil
}

// Calibration is what the samples say of the characters-per-token rates
// (docs/contract.md#calibrate).
type Calibration struct {
	Calls int `json:"calls"`
	// ASCIIRate and NonASCIIRate are characters a token. A rate the
	// samples cannot separate is held at the estimate's and its Fitted
	// flag is false.
	ASCIIRate      float64 `json:"asciiCharsPerToken"`
	NonASCIIRate   float64 `json:"nonAsciiCharsPerToken"`
	ASCIIFitted    bool    `json:"asciiFitted"`
	NonASCIIFitted bool    `json:"nonAsciiFitted"`
	// Quantile is the share of calls the headroom covers: Headroom is that
	// quantile of reported / counted at the fitted rates, WorstRatio the
	// highest.
	Quantile   float64 `json:"quantile"`
	Headroom   float64 `json:"headroom"`
	WorstRatio float64 `json:"worstRatio"`
	// Estimate is the same for the estimate the batches were packed with.
	Estimate RatioSummary `json:"estimate"`
}

// RatioSummary is reported / estimated over the samples: overall, at the
// calibration's quantile, and at worst.
type RatioSummary struct {
	Ratio    float64 `json:"ratio"`
	Headroom float64 `json:"headroom"`
	Worst    float64 `json:"worstRatio"`
}

// nonASCIIShareToFit is the share of non-ASCII code points below which
// the non-ASCII rate is held at the estimate's: a few accents and dashes
// among ASCII text cannot fit a rate. collinear is the squared correlation
// of the two counts above which the samples mix them in too nearly one
// proportion to separate them, and the ASCII rate is held instead.
const (
	nonASCIIShareToFit = 0.01
	collinear          = 0.999
)

// CheckQuantile is Calibrate's rule for its quantile, for a caller that
// refuses a bad one before reading what it would fit.
func CheckQuantile(q float64) error {
	if !(q > 0 && q <= 1) {
		return Errorf(KindInvalidInput, "quantile %v is not in (0, 1]: 0.99 covers 99%% of the calls", q)
	}
	return nil
}

// Calibrate fits reported ≈ ascii/a + nonASCII/b over samples by least
// squares (docs/contract.md#calibrate) and measures the headroom the
// fitted rates and the estimate need so that quantile of the calls fit.
// quantile must be in (0, 1].
func Calibrate(samples []CalibrationSample, quantile float64) (Calibration, error) {
	if err := CheckQuantile(quantile); err != nil {
		return Calibration{}, err
	}
	if len(samples) == 0 {
		return Calibration{}, Errorf(KindInvalidInput, "no map call to calibrate from")
	}
	c := Calibration{Calls: len(samples), Quantile: quantile}
	u, v := fitRates(samples, &c)
	c.ASCIIRate, c.NonASCIIRate = round4(1/u), round4(1/v)
	fitted := make([]float64, len(samples))
	est := make([]float64, len(samples))
	var reported, estimated int
	for i, s := range samples {
		fitted[i] = float64(s.Reported) / (float64(s.ASCII)*u + float64(s.NonASCII)*v)
		est[i] = float64(s.Reported) / float64(max(s.Estimated, 1))
		reported += s.Reported
		estimated += s.Estimated
	}
	c.Headroom, c.WorstRatio = nearestRank(fitted, quantile), round4(slices.Max(fitted))
	c.Estimate = RatioSummary{Ratio: ratio(reported, max(estimated, 1)), Headroom: nearestRank(est, quantile), Worst: round4(slices.Max(est))}
	return c, nil
}

// fitRates returns tokens per ASCII and per non-ASCII code point, and
// records in c which of the two the samples fitted.
func fitRates(samples []CalibrationSample, c *Calibration) (u, v float64) {
	var saa, snn, san, say, sny, sa, sn float64
	for _, s := range samples {
		a, n, y := float64(s.ASCII), float64(s.NonASCII), float64(s.Reported)
		saa, snn, san = saa+a*a, snn+n*n, san+a*n
		say, sny = say+a*y, sny+n*y
		sa, sn = sa+a, sn+n
	}
	heldU, heldV := 1/EstimateASCIIRate, 1/EstimateNonASCIIRate
	switch {
	case sn < nonASCIIShareToFit*(sa+sn) || snn == 0:
		// reported - n*heldV ≈ a*u
		c.ASCIIFitted = true
		return positiveOr((say-san*heldV)/saa, heldU, &c.ASCIIFitted), heldV
	case saa == 0 || san*san >= collinear*saa*snn:
		c.NonASCIIFitted = true
		return heldU, positiveOr((sny-san*heldU)/snn, heldV, &c.NonASCIIFitted)
	}
	det := saa*snn - san*san
	u, v = (say*snn-sny*san)/det, (sny*saa-say*san)/det
	if u <= 0 || v <= 0 {
		// Counts this mixed are noise, not a tokenizer: hold ASCII, which
		// every tokenizer measured counts near the estimate's rate.
		c.NonASCIIFitted = true
		return heldU, positiveOr((sny-san*heldU)/snn, heldV, &c.NonASCIIFitted)
	}
	c.ASCIIFitted, c.NonASCIIFitted = true, true
	return u, v
}

// positiveOr is x when it is a usable rate, else held with fitted cleared.
func positiveOr(x, held float64, fitted *bool) float64 {
	if x > 0 && !math.IsInf(x, 0) && !math.IsNaN(x) {
		return x
	}
	*fitted = false
	return held
}

// nearestRank is the q quantile of xs by the nearest-rank method: the
// smallest value at least q of them do not exceed.
func nearestRank(xs []float64, q float64) float64 {
	sorted := slices.Sorted(slices.Values(xs))
	i := int(math.Ceil(q*float64(len(sorted)))) - 1
	return round4(sorted[max(i, 0)])
}

func round4(x float64) float64 { return math.Round(x*1e4) / 1e4 }
