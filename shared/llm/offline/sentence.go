package offline

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Sentence rules: what counts as a whole sentence, where one ends, and when
// two say the same thing. They decide what an answer may quote.

// openers may precede a sentence's first word; closers may follow its last
// punctuation. "_" and "*" are the italics and bold of plain-text books.
const (
	openers = `'"‘“([_*¿¡「『（`
	closers = `'")]’”」』）_*`
)

// complete reports whether s reads as a whole sentence: it starts as a
// sentence starts (a capital, a digit or a letter without case, such as
// CJK, after any opening quotes) and ends with terminal punctuation (before
// any closing quotes). The rest are fragments: the head or tail of a text
// cut mid-sentence, a title, a line of a list.
func complete(s string) bool {
	first, _ := utf8.DecodeRuneInString(strings.TrimLeft(s, openers))
	if !(unicode.IsLetter(first) || unicode.IsDigit(first)) || unicode.IsLower(first) {
		return false
	}
	last, _ := utf8.DecodeLastRuneInString(strings.TrimRight(s, closers))
	return strings.ContainsRune(".!?。！？", last)
}

// isHeading reports whether line is a Markdown heading ("# Title"): the
// title an import puts at the head of a summary is a name, not a sentence.
func isHeading(line string) bool {
	rest := strings.TrimLeft(line, "#")
	return len(rest) < len(line) && len(line)-len(rest) <= 6 && strings.HasPrefix(rest, " ")
}

// runInHeading reports whether s, the first sentence of a paragraph, is a
// heading run into it ("Climate and water. The drought and the storm
// were...", "2014. The decade opened quietly.", "Governance. The Harbour
// Authority itself changed.") or one standing alone on its line: a name,
// not a sentence. It is one word, or a short phrase of words joined by
// "and", "of", "&" or commas, with no word that reads as a verb (a past
// form in "-ed" or one of headingVerbs), ended by a period.
func runInHeading(s string) bool {
	body, ok := strings.CutSuffix(strings.TrimRight(s, closers), ".")
	if !ok || strings.HasSuffix(body, ".") {
		return false
	}
	words := strings.FieldsFunc(body, func(r rune) bool { return unicode.IsSpace(r) || r == ',' })
	if len(words) == 0 || len(words) > 6 {
		return false
	}
	if len(words) == 1 {
		return true
	}
	joined := false
	for _, w := range words {
		lower := strings.ToLower(strings.TrimFunc(w, func(r rune) bool { return strings.ContainsRune(openers+closers, r) }))
		switch {
		case lower == "and" || lower == "of" || lower == "&":
			joined = true
		case headingVerbs[lower] || len(lower) > 3 && strings.HasSuffix(lower, "ed"):
			return false
		}
	}
	return joined || strings.Contains(body, ",")
}

// headingVerbs are the commonest verbs a short sentence holds that do not
// end in "-ed": a phrase with one of them is a sentence, not a heading.
var headingVerbs = func() map[string]bool {
	m := map[string]bool{}
	for w := range strings.FieldsSeq(`is are was were be been am has have had do does did will would can could
		shall should may might must says said goes went comes came makes made takes took gets got becomes
		became begins began sees saw knows knew gives gave runs ran lives dies`) {
		m[w] = true
	}
	return m
}()

// abbreviations end with a period that does not end a sentence. "No.",
// "etc." and "Inc." are left out: they end sentences as often as not.
var abbreviations = func() map[string]bool {
	m := map[string]bool{}
	for w := range strings.FieldsSeq(`mr mrs ms mme mlle messrs dr prof rev fr st mt jr sr gen col capt lt sgt
		hon vs cf e.g i.e viz`) {
		m[w] = true
	}
	return m
}()

// abbreviation reports whether text, which a period follows, ends with an
// abbreviation or an initial ("C." of "C. D."), so that the period is not a
// sentence end.
func abbreviation(text string) bool {
	i := len(text)
	for i > 0 {
		r, size := utf8.DecodeLastRuneInString(text[:i])
		if !unicode.IsLetter(r) && r != '.' {
			break
		}
		i -= size
	}
	word := strings.TrimLeft(text[i:], ".")
	if r, size := utf8.DecodeRuneInString(word); size == len(word) && unicode.IsUpper(r) {
		return true
	}
	return abbreviations[strings.ToLower(word)]
}

// trimElision drops the ellipsis that marks words left out before a
// sentence ("... Scrooge never painted out Old Marley's name."), so that
// the sentence after it reads whole.
func trimElision(s string) string {
	for _, e := range []string{"...", "…"} {
		if rest, ok := strings.CutPrefix(s, e); ok && (rest == "" || rest[0] == ' ') {
			return strings.TrimSpace(rest)
		}
	}
	return s
}

// normalise reduces s to its words, lower-case, each between single spaces
// (" scrooge was a miser "), so that one sentence found inside another is a
// substring at word boundaries.
func normalise(s string) string {
	var b strings.Builder
	b.WriteByte(' ')
	inWord := false
	for _, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(unicode.ToLower(r))
			inWord = true
		} else if inWord {
			b.WriteByte(' ')
			inWord = false
		}
	}
	if inWord {
		b.WriteByte(' ')
	}
	return b.String()
}

// sentenceSet is the sentences an answer already says.
type sentenceSet struct {
	texts []string
	terms []map[string]bool
}

// add takes s unless it repeats a sentence already taken: the same words up
// to case and punctuation, one of the two a fragment of the other, or nearly
// the same terms (nearDuplicate). It reports whether s was taken.
func (set *sentenceSet) add(s string) bool {
	_, ok := set.addAt(s)
	return ok
}

// addAt is add that also says which sentence taken before s repeats (-1
// for none, as for a sentence without words).
func (set *sentenceSet) addAt(s string) (int, bool) {
	text := normalise(s)
	if strings.TrimSpace(text) == "" {
		return -1, false
	}
	for i, t := range set.texts {
		if strings.Contains(t, text) || strings.Contains(text, t) {
			return i, false
		}
	}
	terms := termSet(s)
	if i := nearDuplicate(terms, set.terms); i >= 0 {
		return i, false
	}
	set.texts = append(set.texts, text)
	set.terms = append(set.terms, terms)
	return len(set.texts) - 1, true
}
