package offline

import (
	"bytes"
	"encoding/json"
	"strings"
	"unicode/utf8"

	"github.com/graphrag-global/graphrag-global/shared/tokens"
)

// fit renders, laid out by layout, as many of units (in order) as fit
// maxTokens. If not even the first fits, its longest prefix that fits is
// used, ended with "…". When no valid output fits at all, it returns the
// output cut off at maxTokens, as a model's output is when it reaches its
// limit, and complete is false.
func fit(maxTokens int, units []unit, layout layout, render func(answer string) any) (out string, complete bool, err error) {
	fits := func(s string) bool { return maxTokens <= 0 || tokens.Estimate(s) <= maxTokens }
	if out, err = encode(render("")); err != nil {
		return "", false, err
	}
	if len(units) == 0 {
		if fits(out) {
			return out, true, nil
		}
		return cut(out, maxTokens), false, nil
	}
	answer := ""
	for k := 1; k <= len(units); k++ {
		next := layout.join(units[:k])
		o, err := encode(render(next))
		if err != nil {
			return "", false, err
		}
		if !fits(o) {
			break
		}
		answer, out = next, o
	}
	if answer != "" {
		return out, true, nil
	}
	// The best sentence alone is too long: keep its longest prefix that fits.
	first := []rune(units[0].text)
	render1 := func(n int) (string, error) { return encode(render(string(first[:n]) + "…")) }
	if o, err := render1(1); err != nil || !fits(o) {
		full, err := encode(render(units[0].text))
		if err != nil {
			return "", false, err
		}
		return cut(full, maxTokens), false, nil
	}
	lo, hi := 1, len(first) // invariant: a prefix of lo runes fits
	for lo < hi {
		mid := (lo + hi + 1) / 2
		o, err := render1(mid)
		if err != nil {
			return "", false, err
		}
		if fits(o) {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	out, err = render1(lo)
	return out, err == nil, err
}

// encode is json.Marshal without HTML escaping, so that "&" and "<" in
// summaries stay readable and cost what they look like.
func encode(v any) (string, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "", err
	}
	return strings.TrimSuffix(buf.String(), "\n"), nil
}

// cut returns the longest prefix of s (whole code points) whose estimate is
// within maxTokens, as a model's output is when it reaches its limit.
func cut(s string, maxTokens int) string {
	var c tokens.Count
	for i, r := range s {
		// An invalid byte decodes as U+FFFD and counts as non-ASCII, as in
		// tokens.Of.
		if r < utf8.RuneSelf {
			c.ASCII++
		} else {
			c.NonASCII++
		}
		if c.Tokens() > maxTokens {
			return s[:i]
		}
	}
	return s
}
