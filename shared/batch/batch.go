// Package batch splits texts into parts and packs the parts into batches
// that each fit a prompt budget (SPEC §4.3). It is pure: no I/O, no model.
//
// The fit test is estimate(skeleton + "\n" + content) <= budget. Packing
// keeps running code point counts (tokens.Count) so it is linear in the
// input: no candidate string is built or re-estimated while packing, and a
// split step is a binary search over prefix counts.
package batch

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/graphrag-global/graphrag-global/shared/tokens"
)

// Item is one text to pack, with the id it is filed under.
type Item struct {
	ID   string
	Text string
}

// Batch is packed content and the ids it holds, in first-seen order without
// duplicates. Tokens is the estimate of skeleton + "\n" + Content.
type Batch struct {
	IDs     []string
	Content string
	Tokens  int
}

// ErrPromptTooLarge means the skeleton alone fails the fit test.
var ErrPromptTooLarge = errors.New("map token budget cannot fit the map prompt")

// TooSmallError means not even one code point of an item fits beside the
// skeleton and a part header.
type TooSmallError struct{ ID string }

func (e *TooSmallError) Error() string {
	return fmt.Sprintf("map token budget is too small for community summary %s", e.ID)
}

// widestPartNumber sizes the header while searching for a part's length, so
// the real header (never wider) cannot push a part over the budget.
const widestPartNumber = 9999999

// Header is the line that opens every part (SPEC §4.3).
func Header(id string, part int) string {
	return "[Community ID: " + id + " | summary part " + strconv.Itoa(part) + "]"
}

// ParseHeader reads a line Header wrote (surrounding blanks allowed): the
// community id and part number. The prompt format is written and read here
// only, so no model has to parse it.
func ParseHeader(line string) (id string, part int, ok bool) {
	m := headerPattern.FindStringSubmatch(strings.TrimSpace(line))
	if m == nil {
		return "", 0, false
	}
	part, err := strconv.Atoi(m[2])
	if err != nil {
		part = widestPartNumber // beyond int: a later part all the same
	}
	return m[1], part, true
}

var headerPattern = regexp.MustCompile(`^\[Community ID: (.*?) ?\| summary part ([0-9]+)\]$`)

// Pack splits each item into parts and packs the parts, in order, greedily
// into batches that pass the fit test.
func Pack(skeleton string, budget int, items []Item) ([]Batch, error) {
	prompt := tokens.NewPrompt(skeleton)
	if !prompt.Fits(tokens.Count{}, budget) {
		return nil, ErrPromptTooLarge
	}
	p := packer{prompt: prompt, budget: budget}
	for _, it := range items {
		if err := p.addItem(it); err != nil {
			return nil, err
		}
	}
	p.flush()
	return p.batches, nil
}

var newline = tokens.Count{ASCII: 1}

type part struct {
	id     string
	header string
	text   string
	count  tokens.Count // header + "\n" + text
}

type packer struct {
	asciiBefore, offset []int32 // split's prefix tables, reused
	prompt              tokens.Prompt
	budget              int
	batches             []Batch

	parts []part
	count tokens.Count // current content: parts joined by "\n"
}

func (p *packer) fits(c tokens.Count) bool { return p.prompt.Fits(c, p.budget) }

func (p *packer) addItem(it Item) error {
	whole := tokens.Of(it.Text)
	first := Header(it.ID, 1)
	firstCount := tokens.Of(first).Add(newline)
	if p.fits(tokens.Of(Header(it.ID, widestPartNumber)).Add(newline).Add(whole)) { // SPEC §4.3.3: every part is sized with the widest header
		p.addPart(part{id: it.ID, header: first, text: it.Text, count: firstCount.Add(whole)})
		return nil
	}
	return p.split(it)
}

// split cuts an oversized text into the largest fitting prefixes. Prefix
// counts are built once per text, so each step is a binary search.
func (p *packer) split(it Item) error {
	n := utf8.RuneCountInString(it.Text)
	if n == 0 {
		return &TooSmallError{ID: it.ID} // an empty text whose header does not fit must not vanish
	}
	// asciiBefore[i] counts ASCII runes before rune i; offset[i] is rune i's byte offset.
	// The buffers are reused from item to item: a split text needs 8 bytes a
	// code point, which would otherwise be allocated again for every text.
	p.asciiBefore = slices.Grow(p.asciiBefore[:0], n+1)[:n+1]
	p.offset = slices.Grow(p.offset[:0], n+1)[:n+1]
	asciiBefore, offset := p.asciiBefore, p.offset
	asciiBefore[0] = 0
	i := 0
	for off, r := range it.Text {
		offset[i] = int32(off)
		asciiBefore[i+1] = asciiBefore[i]
		if r < utf8.RuneSelf {
			asciiBefore[i+1]++
		}
		i++
	}
	offset[n] = int32(len(it.Text))
	prefix := func(start, length int) tokens.Count {
		a := int(asciiBefore[start+length] - asciiBefore[start])
		return tokens.Count{ASCII: a, NonASCII: length - a}
	}
	widest := tokens.Of(Header(it.ID, widestPartNumber)).Add(newline)
	for start, number := 0, 1; start < n; number++ {
		remaining := n - start
		// Largest length in [1, remaining] that fits; 0 if none does.
		lo, hi := 0, remaining
		for lo < hi {
			mid := lo + (hi-lo+1)/2
			if p.fits(widest.Add(prefix(start, mid))) {
				lo = mid
			} else {
				hi = mid - 1
			}
		}
		if lo == 0 {
			return &TooSmallError{ID: it.ID}
		}
		header := Header(it.ID, number)
		p.addPart(part{
			id:     it.ID,
			header: header,
			text:   it.Text[offset[start]:offset[start+lo]],
			count:  tokens.Of(header).Add(newline).Add(prefix(start, lo)),
		})
		start += lo
	}
	return nil
}

func (p *packer) addPart(pt part) {
	joined := p.count.Add(pt.count)
	if len(p.parts) > 0 {
		joined = joined.Add(newline)
	}
	if len(p.parts) > 0 && !p.fits(joined) {
		p.flush()
		joined = pt.count
	}
	p.parts = append(p.parts, pt)
	p.count = joined
}

func (p *packer) flush() {
	if len(p.parts) == 0 {
		return
	}
	size := 0
	for _, pt := range p.parts {
		size += len(pt.header) + 1 + len(pt.text) + 1
	}
	var content strings.Builder
	content.Grow(size)
	var ids []string
	for i, pt := range p.parts {
		if i > 0 {
			content.WriteByte('\n')
		}
		content.WriteString(pt.header)
		content.WriteByte('\n')
		content.WriteString(pt.text)
		if len(ids) == 0 || ids[len(ids)-1] != pt.id {
			ids = appendUnique(ids, pt.id)
		}
	}
	p.batches = append(p.batches, Batch{IDs: ids, Content: content.String(), Tokens: p.prompt.Tokens(p.count)})
	p.parts = p.parts[:0]
	p.count = tokens.Count{}
}

func appendUnique(ids []string, id string) []string {
	for _, have := range ids {
		if have == id {
			return ids
		}
	}
	return append(ids, id)
}
