// Package tokens implements the project's token estimate (docs/contract.md#token-estimate).
//
// It is an estimate, not a tokenizer: ASCII text is counted at four code
// points a token and everything else at 1.8, which over-counts most English
// and under-counts some scripts. Budgets built on it need headroom.
package tokens

import "unicode/utf8"

// Count is the number of ASCII and non-ASCII code points in a text. Counts
// add, so callers that grow a text piece by piece can keep a running Count
// instead of re-reading the whole text at every step. The one exception is
// two invalid UTF-8 fragments that join into one code point ("\xe4\xb8" +
// "\xbd" is "丽"); joins at an ASCII byte, as every join in packing is, or
// with either side valid UTF-8, always add.
type Count struct {
	ASCII    int
	NonASCII int
	// Exact is the tokens an exact Counter counted, joins and their margins
	// included; the estimate leaves it 0.
	Exact int
}

// Of counts the code points of s. Invalid UTF-8 bytes count as one non-ASCII
// code point each, as they do when Go decodes them to U+FFFD.
func Of(s string) Count {
	ascii := 0
	for i := 0; i < len(s); i++ {
		if s[i] < utf8.RuneSelf {
			ascii++
		}
	}
	if ascii == len(s) {
		return Count{ASCII: ascii}
	}
	return Count{ASCII: ascii, NonASCII: utf8.RuneCountInString(s) - ascii}
}

// Add returns the count of two texts joined where a code point ends (an ASCII byte on either side suffices: "\xe4" + "\xb8\xad" is one rune, not three).
func (c Count) Add(o Count) Count {
	return Count{ASCII: c.ASCII + o.ASCII, NonASCII: c.NonASCII + o.NonASCII, Exact: c.Exact + o.Exact}
}

// Runes is the number of code points counted.
func (c Count) Runes() int { return c.ASCII + c.NonASCII }

// Tokens is ceil(nonASCII/1.8 + ascii/4), computed in integers as
// (20n + 9a + 35) / 36 so that no float rounding can move a budget edge
// (docs/contract.md#token-estimate).
func (c Count) Tokens() int {
	return (20*c.NonASCII + 9*c.ASCII + 35) / 36
}

// Estimate is the token estimate of s (docs/contract.md#token-estimate).
func Estimate(s string) int { return Of(s).Tokens() }

// Prompt is the fit test of docs/contract.md#batching and docs/contract.md#reduce-selection for one prompt skeleton: the
// prompt sent is the skeleton with "\n" + content where the content line
// was, so it fits a budget when Estimate(skeleton + "\n" + content) <=
// budget. Counts add, so a caller growing the content piece by piece
// measures each piece once. Map packing and reduce selection both use it.
type Prompt struct {
	counter Counter
	base    Count
}

// NewPrompt measures skeleton and the newline that joins it to the content.
func NewPrompt(skeleton string) Prompt { return NewPromptWith(EstimateCounter, skeleton) }

// NewPromptWith is NewPrompt measured by c. The content goes in where the
// skeleton's content line was, so the prompt sent has one more join than
// skeleton + "\n" + content: the content's own closing join, which c's
// Join bounds like every other (docs/contract.md#token-estimate). The
// estimate counts that newline in the skeleton already.
func NewPromptWith(c Counter, skeleton string) Prompt {
	base := c.Of(skeleton).Add(c.Join())
	if !c.ByCodePoint() {
		base = base.Add(c.Join())
	}
	return Prompt{counter: c, base: base}
}

// Counter is the counter that measures the prompt.
func (p Prompt) Counter() Counter { return p.counter }

// Tokens is the token count of the whole prompt holding content.
func (p Prompt) Tokens(content Count) int { return p.counter.Tokens(p.base.Add(content)) }

// Fits reports whether the prompt holding content is within budget.
func (p Prompt) Fits(content Count, budget int) bool { return p.Tokens(content) <= budget }
