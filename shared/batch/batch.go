// Package batch splits texts into parts and packs the parts into batches
// that each fit a prompt budget (docs/contract.md#batching). It is pure: no I/O, no model.
//
// The fit test is estimate(skeleton + "\n" + content) <= budget. Packing
// keeps running code point counts (tokens.Count) so it is linear in the
// input: no candidate string is built or re-estimated while packing, and a
// split step is a binary search over prefix counts.
package batch

import (
	"errors"
	"fmt"
	"iter"
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
	// Key is what stable packing weighs the boundary after the item by
	// (docs/contract.md#stable-batching), an identity a renumbering of the
	// ids leaves alone; ID when empty.
	Key string
}

// key is what stable packing hashes for it.
func (it Item) key() string {
	if it.Key == "" {
		return it.ID
	}
	return it.Key
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

// SmallestBudget is the least budget at which skeleton alone passes the fit
// test, beside empty content: the estimate of skeleton + "\n".
func SmallestBudget(skeleton string) int { return SmallestBudgetWith(tokens.EstimateCounter, skeleton) }

// SmallestBudgetWith is SmallestBudget measured by c.
func SmallestBudgetWith(c tokens.Counter, skeleton string) int {
	return tokens.NewPromptWith(c, skeleton).Tokens(tokens.Count{})
}

// CheckSkeleton is the fit test with no content: ErrPromptTooLarge when no
// prompt of skeleton fits budget, however little it holds. It is the one
// place that rule is decided: packing applies it before drawing an item,
// and a caller applies it to a request before reading anything to pack.
func CheckSkeleton(skeleton string, budget int) error {
	return CheckSkeletonWith(tokens.EstimateCounter, skeleton, budget)
}

// CheckSkeletonWith is CheckSkeleton measured by c.
func CheckSkeletonWith(c tokens.Counter, skeleton string, budget int) error {
	if budget < SmallestBudgetWith(c, skeleton) {
		return ErrPromptTooLarge
	}
	return nil
}

// TooSmallError means not even one code point of an item fits beside the
// skeleton and a part header.
type TooSmallError struct{ ID string }

func (e *TooSmallError) Error() string {
	return fmt.Sprintf("map token budget is too small for community summary %s", e.ID)
}

// widestPartNumber sizes the header while searching for a part's length, so
// the real header (never wider) cannot push a part over the budget.
const widestPartNumber = 9999999

// Header is the line that opens every part (docs/contract.md#batching).
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
	return PackSeq(skeleton, budget, slices.Values(items))
}

// PackSeq is Pack over items drawn one at a time. Packing keeps no item
// once its parts are copied into a batch, so a caller that builds each text
// as it is drawn never holds every text at once. A skeleton that fails the
// fit test draws no item.
func PackSeq(skeleton string, budget int, items iter.Seq[Item]) ([]Batch, error) {
	return PackSeqWith(tokens.EstimateCounter, skeleton, budget, items)
}

// PackSeqWith is PackSeq measured by c (docs/contract.md#token-estimate):
// with the estimate it is PackSeq exactly. An exact counter counts each
// part whole, header included, on several cores ahead of the packing, and
// adds c.Join per join, so a batch's Tokens bounds the prompt sent.
func PackSeqWith(c tokens.Counter, skeleton string, budget int, items iter.Seq[Item]) ([]Batch, error) {
	return PackSeqReserving(c, skeleton, tokens.Count{}, budget, items)
}

// PackSeqReserving is PackSeqWith with reserve counted beside the
// skeleton in every fit test, though not in a batch's Tokens, which stay
// the estimate of the prompt sent. A caller reserves what a text of the
// skeleton may hold beyond what it holds now, so that skeletons whose
// texts differ within that room pack the same batches
// (docs/contract.md#batching: the question allowance).
func PackSeqReserving(c tokens.Counter, skeleton string, reserve tokens.Count, budget int, items iter.Seq[Item]) ([]Batch, error) {
	p, err := newPacker(c, skeleton, reserve, budget)
	if err != nil {
		return nil, err
	}
	if !c.ByCodePoint() {
		return p.packCounted(items)
	}
	for it := range items {
		if err := p.addItem(it); err != nil {
			return nil, err
		}
	}
	p.flush()
	return p.batches, nil
}

// newPacker is a packer for skeleton and reserve, or ErrPromptTooLarge
// when they leave no room at all: no item is drawn then.
func newPacker(c tokens.Counter, skeleton string, reserve tokens.Count, budget int) (packer, error) {
	p := packer{prompt: tokens.NewPromptWith(c, skeleton), counter: c, newline: c.Join(), budget: budget, reserve: reserve}
	if err := CheckSkeletonWith(c, skeleton, budget); err != nil || !p.fits(tokens.Count{}) {
		return packer{}, ErrPromptTooLarge
	}
	return p, nil
}

type part struct {
	id     string
	key    string // Item.key
	header string
	text   string
	count  tokens.Count // header + "\n" + text
}

type packer struct {
	prompt  tokens.Prompt
	counter tokens.Counter
	newline tokens.Count // what a "\n" join adds
	budget  int
	// reserve is counted in every fit test beside the skeleton and the
	// content, never in a batch's Tokens (PackSeqReserving).
	reserve tokens.Count
	batches []Batch

	parts []part
	count tokens.Count // current content: parts joined by "\n"

	// collect keeps every part pending, for stable packing, which chooses
	// all the boundaries at the end (stable.go).
	collect bool
}

func (p *packer) fits(c tokens.Count) bool { return p.prompt.Fits(c.Add(p.reserve), p.budget) }

func (p *packer) addItem(it Item) error {
	newline := p.newline
	widest := tokens.Of(Header(it.ID, widestPartNumber)).Add(newline)
	// docs/contract.md#token-estimate charges no byte less than a quarter of a non-ASCII code
	// point (a 4-byte code point is the cheapest per byte), so a text whose
	// length in bytes overflows even at that rate cannot fit whole: it is
	// split without being counted first, one pass fewer over a huge text.
	if !p.fits(widest.Add(tokens.Count{NonASCII: len(it.Text) / utf8.UTFMax})) {
		return p.split(it, widest)
	}
	whole := tokens.Of(it.Text)
	first := Header(it.ID, 1)
	firstCount := tokens.Of(first).Add(newline)
	if p.fits(widest.Add(whole)) { // docs/contract.md#batching: every part is sized with the widest header
		p.addPart(part{id: it.ID, key: it.key(), header: first, text: it.Text, count: firstCount.Add(whole)})
		return nil
	}
	return p.split(it, widest)
}

// split cuts an oversized text into the largest fitting prefixes, in one
// forward pass and no allocation. Before a run of ASCII bytes (one code
// point each) it works out, from the counts alone, how many more ASCII
// code points could fit, and reads no further; any other code point is
// tried one at a time. Code points are those of `range`: an invalid byte
// is one of its own. widest counts the widest header of it and its
// newline, which sizes every part.
func (p *packer) split(it Item, widest tokens.Count) error {
	text := it.Text
	if text == "" {
		return &TooSmallError{ID: it.ID} // an empty text whose header does not fit must not vanish
	}
	for number := 1; text != ""; number++ {
		c, end := widest, 0
		for end < len(text) {
			if text[end] < utf8.RuneSelf {
				lo, hi := 0, len(text)-end
				for lo < hi {
					mid := lo + (hi-lo+1)/2
					if p.fits(c.Add(tokens.Count{ASCII: mid})) {
						lo = mid
					} else {
						hi = mid - 1
					}
				}
				run := end
				for run < end+lo && text[run] < utf8.RuneSelf {
					run++
				}
				if run == end {
					break // not one more ASCII code point fits
				}
				c, end = c.Add(tokens.Count{ASCII: run - end}), run
				continue
			}
			next := c.Add(tokens.Count{NonASCII: 1})
			if !p.fits(next) {
				break
			}
			_, size := utf8.DecodeRuneInString(text[end:])
			c, end = next, end+size
		}
		if end == 0 {
			return &TooSmallError{ID: it.ID}
		}
		header := Header(it.ID, number)
		prefix := tokens.Count{ASCII: c.ASCII - widest.ASCII, NonASCII: c.NonASCII - widest.NonASCII}
		p.addPart(part{id: it.ID, key: it.key(), header: header, text: text[:end], count: tokens.Of(header).Add(p.newline).Add(prefix)})
		text = text[end:]
	}
	return nil
}

func (p *packer) addPart(pt part) {
	if p.collect {
		p.parts = append(p.parts, pt)
		return
	}
	joined := p.count.Add(pt.count)
	if len(p.parts) > 0 {
		joined = joined.Add(p.newline)
	}
	if len(p.parts) > 0 && !p.fits(joined) {
		p.flush()
		joined = pt.count
	}
	p.parts = append(p.parts, pt)
	p.count = joined
}

// flush closes a batch of every pending part.
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
	clear(p.parts) // the parts' texts are copied: let them go before the next item is drawn
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
