package batch

import (
	"iter"
	"runtime"
	"sync"
	"unicode/utf8"

	"github.com/graphrag-global/graphrag-global/shared/tokens"
)

// An exact counter is 100-300 times slower per byte than the estimate, so
// packing with one counts each item's whole first part on every core while
// the packer, in order, places the parts counted before. At most window
// items are drawn ahead, so memory stays bounded by a few texts.
func window() int { return 4 * runtime.GOMAXPROCS(0) }

type counted struct {
	it    Item
	first string // Header(id, 1) + "\n" + text
	count chan tokens.Count
}

// packCounted packs with a counter that is not a sum over code points
// (docs/contract.md#batching): a part is measured whole, with its real
// header, and a text whose first part does not fit is cut at the longest
// prefix that does, each candidate counted afresh.
func (p *packer) packCounted(items iter.Seq[Item]) ([]Batch, error) {
	queue := make(chan counted, window())
	work := make(chan counted)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for c := range work {
				c.count <- p.counter.Of(c.first)
			}
		})
	}
	wg.Go(func() {
		defer close(work)
		defer close(queue)
		for it := range items {
			c := counted{it: it, first: Header(it.ID, 1) + "\n" + it.Text, count: make(chan tokens.Count, 1)}
			select {
			case queue <- c:
			case <-stop:
				return
			}
			work <- c
		}
	})
	// Whatever ends the packing, the drawing and counting end before
	// PackSeqWith returns: no goroutine outlives the call.
	defer wg.Wait()
	defer close(stop)
	for c := range queue {
		count := <-c.count
		if p.fits(count) {
			p.addPart(part{id: c.it.ID, header: Header(c.it.ID, 1), text: c.it.Text, count: count})
			continue
		}
		if err := p.splitCounted(c.it); err != nil {
			return nil, err
		}
	}
	p.flush()
	return p.batches, nil
}

// splitCounted cuts text into parts that each fit alone, counting every
// candidate prefix with its header. A count need not grow with the prefix
// (a longer prefix may merge into fewer tokens), so the search keeps a
// prefix it has counted and seen fit, and returns the longest it found:
// it first doubles a guess drawn from the budget, then halves the gap.
func (p *packer) splitCounted(it Item) error {
	text := it.Text
	if text == "" {
		return &TooSmallError{ID: it.ID}
	}
	for number := 1; text != ""; number++ {
		header := Header(it.ID, number)
		measure := func(end int) tokens.Count { return p.counter.Of(header + "\n" + text[:end]) }
		room := p.budget - p.prompt.Tokens(p.counter.Of(header+"\n").Add(p.reserve))
		end, count := p.longestFit(text, max(room, 1)*utf8.UTFMax, measure)
		if end == 0 {
			return &TooSmallError{ID: it.ID}
		}
		p.addPart(part{id: it.ID, header: header, text: text[:end], count: count})
		text = text[end:]
	}
	return nil
}

// longestFit is the end of the longest prefix of text, at a code point
// boundary, whose measure fits, found from guess, and its measure; 0 when
// not one code point fits.
func (p *packer) longestFit(text string, guess int, measure func(int) tokens.Count) (int, tokens.Count) {
	lo, hi := 0, len(text)+1 // lo fits (0 trivially), hi does not, or is past the end
	var loCount tokens.Count
	try := func(end int) bool {
		c := measure(end)
		if p.fits(c) {
			lo, loCount = end, c
			return true
		}
		hi = end
		return false
	}
	for n := boundary(text, min(guess, len(text))); n > lo && n < hi && try(n) && n < len(text); {
		n = boundary(text, min(2*n, len(text)))
	}
	for {
		mid := boundary(text, lo+(hi-lo)/2)
		if mid <= lo {
			mid = next(text, lo)
		}
		if mid >= hi {
			return lo, loCount
		}
		try(mid)
	}
}

// boundary is i moved back to the start of the code point it falls in.
func boundary(text string, i int) int {
	for j := i; j > 0 && j > i-utf8.UTFMax && j < len(text); j-- {
		if utf8.RuneStart(text[j]) {
			return j
		}
	}
	return i
}

// next is the end of the code point that starts at i.
func next(text string, i int) int {
	if i >= len(text) {
		return len(text) + 1
	}
	_, size := utf8.DecodeRuneInString(text[i:])
	return i + size
}
