package tokens

import "strings"

// Rates are the code points a token holds on average, ASCII and non-ASCII,
// in hundredths, and the headroom added on top, in percent
// (docs/contract.md#token-estimate).
type Rates struct {
	Family   string
	ASCII    int // hundredths of a code point per token
	NonASCII int
	Headroom int // percent added to the count
}

// The fitted rates of docs/contract.md#token-estimate: ASCII about 4.0 code
// points a token on every tokenizer measured, non-ASCII 0.96 (cl100k), 1.30
// (o200k), 1.01 (Claude), 1.32 (Llama 3). A code point count misses how
// text really splits by 10-15%, so every family carries 15% headroom. A
// family never measured (Nova, Mistral, unknown ids) takes the lowest
// non-ASCII rate measured, cl100k's, which over-counts rather than
// overflows.
var (
	RatesCL100k  = Rates{Family: "cl100k", ASCII: 400, NonASCII: 96, Headroom: 15}
	RatesO200k   = Rates{Family: "o200k", ASCII: 400, NonASCII: 130, Headroom: 15}
	RatesClaude  = Rates{Family: "claude", ASCII: 400, NonASCII: 101, Headroom: 15}
	RatesLlama   = Rates{Family: "llama", ASCII: 400, NonASCII: 132, Headroom: 15}
	RatesUnknown = Rates{Family: "unmeasured", ASCII: 400, NonASCII: 96, Headroom: 15}
)

// Calibrated counts code points at r's rates: Tokens is
// ceil((1 + headroom) * (ascii/asciiRate + nonASCII/nonASCIIRate)),
// in integers so no float rounding moves a budget edge.
type Calibrated struct{ Rates Rates }

// CalibratedFor is the calibrated counter of model's family.
func CalibratedFor(model string) Calibrated {
	switch Family(model) {
	case FamilyO200k:
		return Calibrated{RatesO200k}
	case FamilyCL100k:
		return Calibrated{RatesCL100k}
	case FamilyClaude:
		return Calibrated{RatesClaude}
	case FamilyLlama:
		return Calibrated{RatesLlama}
	}
	return Calibrated{RatesUnknown}
}

func (Calibrated) Name() string      { return NameCalibrated }
func (Calibrated) Of(s string) Count { return Of(s) }
func (Calibrated) Join() Count       { return Count{ASCII: 1} }
func (Calibrated) ByCodePoint() bool { return true }

// Tokens is ceil(H*(a*RN + n*RA) / (100*RA*RN)) with the rates in
// hundredths and H = 100 + headroom.
func (c Calibrated) Tokens(n Count) int {
	r := c.Rates
	num := int64(100+r.Headroom) * 100 * (int64(n.ASCII)*int64(r.NonASCII) + int64(n.NonASCII)*int64(r.ASCII))
	den := int64(100) * int64(r.ASCII) * int64(r.NonASCII)
	return int((num + den - 1) / den)
}

// Model families, as the tokenizer default and the calibrated rates see
// them (docs/contract.md#token-estimate).
const (
	FamilyOffline = "offline"
	FamilyO200k   = "o200k"
	FamilyCL100k  = "cl100k"
	FamilyClaude  = "claude"
	FamilyNova    = "nova"
	FamilyLlama   = "llama"
	FamilyOther   = "other"
)

// Family is the model family of a model id: a Bedrock model or inference
// profile id (us.anthropic.claude-…), a CLI --model value
// (openai:gpt-4o@http://…, bedrock:…, offline) or "" (no model known,
// as offline). Only the model name counts, never a base URL.
func Family(model string) string {
	m := strings.ToLower(strings.TrimSpace(model))
	m, _, _ = strings.Cut(m, "@")
	if m == "" || m == "offline" {
		return FamilyOffline
	}
	switch {
	case strings.Contains(m, "claude") || strings.Contains(m, "anthropic"):
		return FamilyClaude
	case strings.Contains(m, "nova"):
		return FamilyNova
	case strings.Contains(m, "llama"):
		return FamilyLlama
	}
	// An OpenAI name: after the CLI's provider prefix and any vendor/.
	name := m
	if i := strings.Index(m, ":"); i >= 0 {
		name = m[i+1:]
	}
	name = name[strings.LastIndex(name, "/")+1:]
	for _, p := range []string{"gpt-4o", "gpt-4.1", "gpt-4.5", "gpt-5", "chatgpt-4o", "o1", "o3", "o4"} {
		if strings.HasPrefix(name, p) {
			return FamilyO200k
		}
	}
	for _, p := range []string{"gpt-4", "gpt-3.5", "gpt-35"} {
		if strings.HasPrefix(name, p) {
			return FamilyCL100k
		}
	}
	return FamilyOther
}

// DefaultFor is the tokenizer option a request that names none gets for
// model (docs/contract.md#token-estimate): the exact vocabulary where the
// model's is public (OpenAI's), calibrated rates where it is not (Bedrock
// Claude and Nova, Llama, any other), the estimate for the offline model,
// whose reported tokens are the estimate itself.
func DefaultFor(model string) string {
	switch Family(model) {
	case FamilyOffline:
		return NameEstimate
	case FamilyO200k:
		return NameO200k
	case FamilyCL100k:
		return NameCL100k
	}
	return NameCalibrated
}
