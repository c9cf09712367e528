package globalsearch

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// RatingPrefixRunes bounds the text a rating call reads of each community
// beside its title (docs/contract.md#dynamic-selection): the whole
// sentences of its short form that fit, at least its first sentence cut at
// a word. A GraphRAG report's summary opens by naming what the community
// centers on and its key entities in its first two sentences, which is
// what a rater needs to judge whether to read on; the rest details those
// entities' relations, which the map reads in full. 450 holds the first
// two sentences of 9 in 10 of the Christmas Carol reports (median 343),
// about two thirds of a whole report's summary (median 685).
const RatingPrefixRunes = 450

// ratingText is what a rating call sees of a community: its title and a
// prefix of its short form, cut at a sentence (docs/contract.md#dynamic-selection).
// The short form is the summary's ShortSummary when it has one (GraphRAG's
// summary column beside a full_content map text), else its summary; a
// heading that repeats the title is left out, as the title is there.
func ratingText(s *Summary) string {
	title := strings.Join(strings.Fields(s.Title), " ")
	body := s.ShortSummary
	if strings.TrimSpace(body) == "" {
		body = s.Summary
	}
	body = strings.TrimSpace(body)
	if title != "" {
		if first, rest, _ := strings.Cut(body, "\n"); strings.TrimSpace(first) == "# "+title {
			body = strings.TrimSpace(rest)
		}
	}
	body = sentencePrefix(body, RatingPrefixRunes)
	switch {
	case title == "":
		return body
	case body == "":
		return title
	}
	return title + "\n" + body
}

// sentencePrefix is the longest run of whole sentences of text within
// limit runes, or, when the first sentence alone is longer, that sentence
// cut at the last space within limit (at limit runes if it has none). A
// sentence ends at ".", "!" or "?" (or their CJK forms) before a space or
// the end, unless the word before it is a capitalised abbreviation or an
// initial ("Mr.", "J."), or at a blank line.
func sentencePrefix(text string, limit int) string {
	if utf8.RuneCountInString(text) <= limit {
		return text
	}
	end, runes, lastSpace := 0, 0, 0
	for i, r := range text {
		if runes == limit {
			break
		}
		runes++
		next := i + utf8.RuneLen(r)
		if unicode.IsSpace(r) {
			lastSpace = i
		}
		if sentenceEnds(text, i, r, next) {
			end = next
		}
	}
	switch {
	case end > 0:
		return strings.TrimSpace(text[:end])
	case lastSpace > 0:
		return strings.TrimSpace(text[:lastSpace])
	}
	cut, n := 0, 0
	for i := range text {
		if n == limit {
			cut = i
			break
		}
		n++
	}
	return text[:cut]
}

// sentenceEnds says whether the rune r at byte i of text, the next rune
// at byte next, ends a sentence.
func sentenceEnds(text string, i int, r rune, next int) bool {
	switch r {
	case '。', '！', '？':
		return true
	case '\n':
		return strings.HasPrefix(text[next:], "\n")
	case '.', '!', '?':
	default:
		return false
	}
	if next < len(text) {
		n, _ := utf8.DecodeRuneInString(text[next:])
		if !unicode.IsSpace(n) {
			return false
		}
	}
	if r != '.' {
		return true
	}
	word := text[strings.LastIndexFunc(text[:i], func(c rune) bool { return !unicode.IsLetter(c) })+1 : i]
	first, _ := utf8.DecodeRuneInString(word)
	return !(word != "" && unicode.IsUpper(first) && utf8.RuneCountInString(word) <= 3)
}
