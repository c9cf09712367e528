package offline

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

// Header lines of the map content (docs/contract.md#map-text, docs/contract.md#batching) and of the reduce
// content (docs/contract.md#reduce). They are structure, not evidence, so they are never
// scored or quoted.
var headerPrefixes = []string{
	"[Community ID: ",
	"[Community summary]",
	"[Supporting claims]",
	"[Source excerpts]",
	"[Usefulness: ",
}

// excerptID matches the "(chunkId) " that starts an excerpt bullet (docs/contract.md#map-text).
var excerptID = regexp.MustCompile(`^\([^()\s]+\)\s+`)

// dataRef matches a data reference in a text, "[Data: Entities (5, 7);
// Relationships (3)]" as GraphRAG writes them into its reports' findings,
// with the space before it. A sentence is quoted without it: what it
// cites are records of GraphRAG's, not of this index, and the answer
// cites its own communities (docs/contract.md#citations).
var dataRef = regexp.MustCompile(`\s*\[Data: [^\[\]]*\]`)

// claimBullet matches the body of a claim bullet, "subject -> object:
// description" or "subject: description" (docs/contract.md#map-text).
var claimBullet = regexp.MustCompile(`^([^:]+?)(?: -> [^:]+?)?: (.+)$`)

// section is the part of a map text a line belongs to
// (docs/contract.md#map-text).
type section int

const (
	sectionOther    section = iota // text before any section header: a reduce candidate, say
	sectionSummary                 // [Community summary]
	sectionClaims                  // [Supporting claims]
	sectionExcerpts                // [Source excerpts]
)

// sectionOf names the section a header line opens (sectionOther for the
// headers that open none).
func sectionOf(header string) section {
	switch {
	case strings.HasPrefix(header, "[Community summary]"):
		return sectionSummary
	case strings.HasPrefix(header, "[Supporting claims]"):
		return sectionClaims
	case strings.HasPrefix(header, "[Source excerpts]"):
		return sectionExcerpts
	}
	return sectionOther
}

// bullet strips the markup of an excerpt or claim bullet. A claim is quoted
// by its description alone: the "subject -> object:" lead is index syntax,
// not prose, and a reader must never see it. The arrow form is dropped in
// any section (a part that continues a split text may start inside the
// claims with no header to say so); "subject:" only among the claims.
func bullet(s string, in section) string {
	if excerptID.MatchString(s) {
		return excerptID.ReplaceAllString(s, "")
	}
	if m := claimBullet.FindStringSubmatch(s); m != nil && (in == sectionClaims || strings.Contains(s[:len(s)-len(m[2])], " -> ")) {
		return m[2]
	}
	return s
}

func isHeader(line string) bool {
	if !strings.HasPrefix(line, "[") || !strings.HasSuffix(line, "]") {
		return false
	}
	for _, p := range headerPrefixes {
		if strings.HasPrefix(line, p) {
			return true
		}
	}
	return false
}

// sentence is one sentence of a batch, with where it came from.
type sentence struct {
	text       string
	community  string  // the part's community id
	section    section // the section of the map text it sits in
	whole      bool    // it reads as a whole sentence (complete)
	centrality float64 // the part's (docs/contract.md#centrality)
	pos        int     // its position in the batch
}

// partSentences splits a batch's parts into sentences (batchSentences),
// skipping header lines, Markdown headings (an imported report's title) and
// the markup of claim and excerpt bullets. Hard-wrapped lines are joined
// into paragraphs first: source chunks keep the line breaks of their
// document, and a line is not a sentence. whole holds the complete
// sentences (see complete), fragments the rest: the start or end of a text
// cut mid-sentence (a chunk, a part of a split summary, an elided quote),
// which is still evidence but does not read as an answer.
func partSentences(parts []globalsearch.MapPart) (whole, fragments []string) {
	return split(batchSentences(parts))
}

// batchSentences is every sentence of a batch's parts, in batch order. A
// part that continues a split text goes on in the section where the part
// before it (when the batch holds it) ended.
func batchSentences(parts []globalsearch.MapPart) []sentence {
	var out []sentence
	ended := map[string]section{}
	for _, p := range parts {
		in := sectionOther
		if p.Part > 1 {
			in = ended[p.CommunityID]
		}
		out, ended[p.CommunityID] = appendText(out, p, in)
	}
	for i := range out {
		out[i].pos = i
	}
	return out
}

func split(sents []sentence) (whole, fragments []string) {
	for _, s := range sents {
		if s.whole {
			whole = append(whole, s.text)
		} else {
			fragments = append(fragments, s.text)
		}
	}
	return whole, fragments
}

// appendText adds the sentences of one part, which starts in section in,
// to out, and returns the section it ends in. A part that continues a
// split summary (docs/contract.md#batching splits by code points) starts
// with the tail of a sentence cut in two, even when it happens to start
// with a capital.
func appendText(out []sentence, p globalsearch.MapPart, in section) ([]sentence, section) {
	var para strings.Builder
	continued := p.Part > 1
	flush := func() {
		if para.Len() == 0 {
			return
		}
		split := appendSentences(nil, dataRef.ReplaceAllString(para.String(), ""))
		para.Reset()
		if !continued && len(split) > 0 && runInHeading(split[0]) {
			// A heading run into its paragraph, or alone on its line, is
			// a name: no sentence, and no fragment to quote either.
			split = split[1:]
		}
		for i, s := range split {
			out = append(out, sentence{text: s, community: p.CommunityID, section: in,
				whole: !(continued && i == 0) && complete(s), centrality: p.Centrality})
		}
		continued = false
	}
	for line := range strings.Lines(p.Text) {
		line = strings.TrimSpace(line)
		switch {
		case line == "":
			flush()
		case isHeader(line):
			// A section header starts the part's own text: nothing before
			// it is cut.
			flush()
			continued = false
			in = sectionOf(line)
		case isHeading(line):
			flush()
		case strings.HasPrefix(line, "- "):
			flush()
			para.WriteString(bullet(line[2:], in))
		default:
			if para.Len() > 0 {
				para.WriteByte(' ')
			}
			para.WriteString(line)
		}
	}
	flush()
	return out, in
}

// appendSentences splits one paragraph at sentence enders. Latin enders
// (. ! ?) end a sentence only when followed by a space and then something
// that is not a lower-case letter, which keeps "e.g. this" and "3.5" whole,
// and a period does not end one after an abbreviation or an initial ("Mr.
// Fezziwig", "C. D. Dickens"). CJK enders (。！？) end a sentence at once:
// CJK text puts no space after them.
func appendSentences(out []string, line string) []string {
	start := 0
	for i := 0; i < len(line); {
		r, size := utf8.DecodeRuneInString(line[i:])
		end := i + size
		switch r {
		case '。', '！', '？':
			end = skipClosers(line, end)
			out = appendTrimmed(out, line[start:end])
			start, i = end, end
			continue
		case '.', '!', '?':
			end = skipClosers(line, end)
			if end < len(line) && line[end] == ' ' && !nextIsLower(line[end:]) && (r != '.' || !abbreviation(line[start:i])) {
				out = appendTrimmed(out, line[start:end])
				start, i = end, end
				continue
			}
		}
		i += size
	}
	return appendTrimmed(out, line[start:])
}

// skipClosers moves past quotes and brackets that close a sentence, so they
// stay with it.
func skipClosers(s string, i int) int {
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		if !strings.ContainsRune(`'")]’”」』）`, r) {
			break
		}
		i += size
	}
	return i
}

func nextIsLower(s string) bool {
	s = strings.TrimLeft(s, " ")
	r, _ := utf8.DecodeRuneInString(s)
	return unicode.IsLower(r)
}

func appendTrimmed(out []string, s string) []string {
	if s = trimElision(strings.TrimSpace(s)); s != "" {
		out = append(out, s)
	}
	return out
}

// stopwords are words that carry no topic. The list is short on purpose:
// it holds the function words and question fillers ("what are the main")
// that would otherwise match nearly every sentence.
var stopwords = func() map[string]bool {
	m := map[string]bool{}
	for w := range strings.FieldsSeq(`a about across after all also am an and any are as at be been before
		being between both biggest but by can could describe did do does during each explain for from
		give had has have how i identify important in into is it its key list main major me more most
		my notable of on or other our over overall please primary principal prominent s should
		significant so some such summarise summarize tell than that the their them then there these they
		this those through to top under up was we were what when where which while who whom why will
		with would you your`) {
		m[w] = true
	}
	return m
}()

// isCJK reports whether r is written without spaces between words, so that
// it is indexed as character bigrams instead of words.
func isCJK(r rune) bool {
	// Every script below starts at or after U+1100 (Hangul Jamo): a cheap
	// test spares most text the table lookups.
	return r >= 0x1100 && unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul)
}

// terms tokenises s for scoring: lower-case runs of letters and digits for
// alphabetic scripts (stopwords and one-letter words dropped, plurals folded)
// and overlapping character bigrams for CJK runs, which need no dictionary
// and match Chinese and Japanese words of two or more characters. A CJK run
// of a single character is kept as a unigram.
func terms(s string) []string {
	var out []string
	var word []rune
	var cjk []rune
	flushWord := func() {
		if len(word) == 0 {
			return
		}
		w := string(word)
		word = word[:0]
		if len(w) == 1 && w[0] >= 'a' && w[0] <= 'z' || stopwords[w] {
			return
		}
		out = append(out, stem(w))
	}
	flushCJK := func() {
		switch len(cjk) {
		case 0:
			return
		case 1:
			out = append(out, string(cjk))
		default:
			for i := 0; i+1 < len(cjk); i++ {
				out = append(out, string(cjk[i:i+2]))
			}
		}
		cjk = cjk[:0]
	}
	for _, r := range s {
		switch {
		case isCJK(r):
			flushWord()
			cjk = append(cjk, r)
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			flushCJK()
			word = append(word, unicode.ToLower(r))
		default:
			flushWord()
			flushCJK()
		}
	}
	flushWord()
	flushCJK()
	return out
}

// stem folds the commonest English plurals ("themes" -> "theme",
// "ferries" -> "ferry") so that a question and its evidence meet. It is
// deliberately crude: words ending in ss, us or is are left alone.
func stem(w string) string {
	switch {
	case len(w) > 4 && strings.HasSuffix(w, "ies"):
		return w[:len(w)-3] + "y"
	case len(w) > 3 && strings.HasSuffix(w, "s") &&
		!strings.HasSuffix(w, "ss") && !strings.HasSuffix(w, "us") && !strings.HasSuffix(w, "is"):
		return w[:len(w)-1]
	}
	return w
}
