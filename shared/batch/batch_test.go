package batch_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/batch"
	"github.com/graphrag-global/graphrag-global/shared/tokens"
)

// docs/contract.md#pinned-cases, batching acceptance cases.
func TestPackAcceptance(t *testing.T) {
	const skeleton = "Question: explain the global trend."
	text := strings.Repeat("Shared trend. ", 120)

	got, err := batch.Pack(skeleton, 80, []batch.Item{{ID: "community-1", Text: text}})
	require.NoError(t, err)
	require.Len(t, got, 8)
	for i, b := range got {
		assert.Equal(t, []string{"community-1"}, b.IDs, "batch %d", i)
		assertFits(t, skeleton, 80, b)
		want := 79
		if i == len(got)-1 {
			want = 33
		}
		assert.Equal(t, want, b.Tokens, "batch %d", i)
	}
	assertRoundTrip(t, []batch.Item{{ID: "community-1", Text: text}}, got)
}

func TestPackErrors(t *testing.T) {
	tests := []struct {
		name     string
		skeleton string
		budget   int
		items    []batch.Item
		wantMsg  string
		tooSmall string // the id a *TooSmallError names; empty for ErrPromptTooLarge
	}{
		{
			name:     "skeleton alone does not fit",
			skeleton: "a long prompt",
			budget:   1,
			wantMsg:  "map token budget cannot fit the map prompt",
		},
		{
			name:     "skeleton alone does not fit, with items",
			skeleton: "a long prompt",
			budget:   1,
			items:    []batch.Item{{ID: "c1", Text: "text"}},
			wantMsg:  "map token budget cannot fit the map prompt",
		},
		{
			name:     "not one code point fits beside the header",
			skeleton: "",
			budget:   2,
			items:    []batch.Item{{ID: "c1", Text: "Some summary text."}},
			wantMsg:  "map token budget is too small for community summary c1",
			tooSmall: "c1",
		},
		{
			// Regression: Pack used to drop such an item without a word.
			name:     "empty text whose header does not fit",
			skeleton: "",
			budget:   8,
			items:    []batch.Item{{ID: "c1", Text: ""}},
			wantMsg:  "map token budget is too small for community summary c1",
			tooSmall: "c1",
		},
		{
			// The part-1 header would fit (10 tokens), the widest one does not
			// (11): every part is sized with the widest header (docs/contract.md#batching).
			name:     "empty text is sized with the widest header",
			skeleton: "",
			budget:   10,
			items:    []batch.Item{{ID: "c1", Text: ""}},
			wantMsg:  "map token budget is too small for community summary c1",
			tooSmall: "c1",
		},
		{
			name:     "later item too small after earlier ones fit",
			skeleton: "",
			budget:   12,
			items:    []batch.Item{{ID: "a", Text: "ok"}, {ID: "a-much-longer-community-id", Text: "x"}},
			wantMsg:  "map token budget is too small for community summary a-much-longer-community-id",
			tooSmall: "a-much-longer-community-id",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := batch.Pack(tc.skeleton, tc.budget, tc.items)
			require.Error(t, err)
			assert.Nil(t, got)
			assert.EqualError(t, err, tc.wantMsg)
			if tc.tooSmall == "" {
				assert.ErrorIs(t, err, batch.ErrPromptTooLarge)
				return
			}
			var tooSmall *batch.TooSmallError
			require.ErrorAs(t, err, &tooSmall)
			assert.Equal(t, tc.tooSmall, tooSmall.ID)
		})
	}
}

func TestPack(t *testing.T) {
	tests := []struct {
		name     string
		skeleton string
		budget   int
		items    []batch.Item
		want     []batch.Batch
	}{
		{
			name:     "no items, no batches",
			skeleton: "q",
			budget:   10,
			want:     nil,
		},
		{
			name:     "two items share a batch, joined by one newline",
			skeleton: "q",
			budget:   100,
			items:    []batch.Item{{ID: "a", Text: "alpha"}, {ID: "b", Text: "beta"}},
			want: []batch.Batch{{
				IDs:     []string{"a", "b"},
				Content: "[Community ID: a | summary part 1]\nalpha\n[Community ID: b | summary part 1]\nbeta",
				Tokens:  tokens.Estimate("q\n[Community ID: a | summary part 1]\nalpha\n[Community ID: b | summary part 1]\nbeta"),
			}},
		},
		{
			name:     "an item that does not fit beside the first starts a new batch",
			skeleton: "q",
			budget:   15,
			items:    []batch.Item{{ID: "a", Text: "alpha"}, {ID: "b", Text: "beta"}},
			want: []batch.Batch{
				{IDs: []string{"a"}, Content: "[Community ID: a | summary part 1]\nalpha", Tokens: 11},
				{IDs: []string{"b"}, Content: "[Community ID: b | summary part 1]\nbeta", Tokens: 11},
			},
		},
		{
			name:     "a repeated id is listed once",
			skeleton: "q",
			budget:   100,
			items:    []batch.Item{{ID: "a", Text: "x"}, {ID: "b", Text: "y"}, {ID: "a", Text: "z"}},
			want: []batch.Batch{{
				IDs:     []string{"a", "b"},
				Content: "[Community ID: a | summary part 1]\nx\n[Community ID: b | summary part 1]\ny\n[Community ID: a | summary part 1]\nz",
				Tokens:  tokens.Estimate("q\n[Community ID: a | summary part 1]\nx\n[Community ID: b | summary part 1]\ny\n[Community ID: a | summary part 1]\nz"),
			}},
		},
		{
			// Each CJK rune is 3 bytes: a split by bytes would cut one in half.
			name:     "splits by code points, never inside a rune",
			skeleton: "",
			budget:   14,
			items:    []batch.Item{{ID: "c", Text: strings.Repeat("中文", 7)}},
			want: []batch.Batch{
				{IDs: []string{"c"}, Content: "[Community ID: c | summary part 1]\n中文中文中文", Tokens: 13},
				{IDs: []string{"c"}, Content: "[Community ID: c | summary part 2]\n中文中文中文", Tokens: 13},
				{IDs: []string{"c"}, Content: "[Community ID: c | summary part 3]\n中文", Tokens: 11},
			},
		},
		{
			name:     "an empty text is one empty part",
			skeleton: "",
			budget:   20,
			items:    []batch.Item{{ID: "c1", Text: ""}},
			want:     []batch.Batch{{IDs: []string{"c1"}, Content: "[Community ID: c1 | summary part 1]\n", Tokens: 10}},
		},
		{
			// 40 x's fit beside the part-1 header (20 tokens) but not beside
			// the widest header (22): the binary search of docs/contract.md#batching sizes
			// every part, the first included, for part 9999999.
			name:     "a text that fits only beside the part-1 header is split",
			skeleton: "",
			budget:   20,
			items:    []batch.Item{{ID: "c1", Text: strings.Repeat("x", 40)}},
			want: []batch.Batch{
				{IDs: []string{"c1"}, Content: "[Community ID: c1 | summary part 1]\n" + strings.Repeat("x", 37), Tokens: 19},
				{IDs: []string{"c1"}, Content: "[Community ID: c1 | summary part 2]\nxxx", Tokens: 10},
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := batch.Pack(tc.skeleton, tc.budget, tc.items)
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
			for _, b := range got {
				assertFits(t, tc.skeleton, tc.budget, b)
			}
			assertRoundTrip(t, tc.items, got)
			want, err := referencePack(tc.skeleton, tc.budget, tc.items)
			require.NoError(t, err)
			assert.Equal(t, want, got, "reference")
		})
	}
}

// TestCheckSkeleton: the least budget that fits the skeleton is the
// estimate of the skeleton and its newline, and packing at any lower one
// draws no item.
func TestCheckSkeleton(t *testing.T) {
	for _, skeleton := range []string{"", "q", "Question: explain the global trend.", strings.Repeat("全球趋势 ", 40)} {
		least := batch.SmallestBudget(skeleton)
		require.Equal(t, tokens.Estimate(skeleton+"\n"), least, "%q", skeleton)
		assert.NoError(t, batch.CheckSkeleton(skeleton, least), "%q", skeleton)
		assert.ErrorIs(t, batch.CheckSkeleton(skeleton, least-1), batch.ErrPromptTooLarge, "%q", skeleton)
		drawn := 0
		items := func(yield func(batch.Item) bool) {
			drawn++
			yield(batch.Item{ID: "c1", Text: "x"})
		}
		_, err := batch.PackSeq(skeleton, least-1, items)
		assert.ErrorIs(t, err, batch.ErrPromptTooLarge, "%q", skeleton)
		assert.Zero(t, drawn, "%q: no item is drawn beside a skeleton that does not fit", skeleton)
	}
}

func TestHeader(t *testing.T) {
	assert.Equal(t, "[Community ID: c-7 | summary part 12]", batch.Header("c-7", 12))
}

// TestPackMatchesReference compares Pack with a straightforward
// implementation of docs/contract.md#batching on random inputs.
func TestPackMatchesReference(t *testing.T) {
	iterations := 1000
	if testing.Short() {
		iterations = 200
	}
	rng := rand.New(rand.NewPCG(20240601, 7))
	for i := range iterations {
		skeleton, budget, items := randomInput(rng)
		want, wantErr := referencePack(skeleton, budget, items)
		got, err := batch.Pack(skeleton, budget, items)
		gotSeq, errSeq := batch.PackSeq(skeleton, budget, slices.Values(items))
		if !assert.Equal(t, wantErr, err, "iteration %d: error", i) ||
			!assert.Equal(t, want, got, "iteration %d: batches", i) ||
			!assert.Equal(t, wantErr, errSeq, "iteration %d: PackSeq error", i) ||
			!assert.Equal(t, want, gotSeq, "iteration %d: PackSeq batches", i) {
			t.Logf("iteration %d: skeleton %q budget %d items %s", i, skeleton, budget, describe(items))
			t.FailNow()
		}
		if err != nil {
			continue
		}
		for _, b := range got {
			assertFits(t, skeleton, budget, b)
		}
		assertRoundTrip(t, items, got)
	}
}

// PackSeq draws items only while it packs: an error stops the drawing, so
// a caller building texts on demand builds none past the failing one.
func TestPackSeqStopsDrawing(t *testing.T) {
	skeleton := "Question: q"
	budget := tokens.Estimate(skeleton+"\n"+batch.Header("a", 9999999)+"\nxx") + 1
	items := []batch.Item{{ID: "a", Text: "x"}, {ID: "b", Text: ""}, {ID: "c", Text: "y"}}
	cases := []struct {
		name     string
		budget   int
		wantErr  func(error) bool
		wantDrew []string
	}{
		{name: "skeleton too large", budget: 1,
			wantErr: func(err error) bool { return errors.Is(err, batch.ErrPromptTooLarge) }},
		{name: "item too small", budget: tokens.Estimate(skeleton+"\n"+batch.Header("a", 9999999)+"\n") - 1,
			wantErr:  func(err error) bool { var e *batch.TooSmallError; return errors.As(err, &e) && e.ID == "a" },
			wantDrew: []string{"a"}},
		{name: "all fit", budget: budget, wantErr: func(err error) bool { return err == nil },
			wantDrew: []string{"a", "b", "c"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var drew []string
			seq := func(yield func(batch.Item) bool) {
				for _, it := range items {
					drew = append(drew, it.ID)
					if !yield(it) {
						return
					}
				}
			}
			got, err := batch.PackSeq(skeleton, tc.budget, seq)
			assert.True(t, tc.wantErr(err), "error %v", err)
			assert.Equal(t, tc.wantDrew, drew)
			if err == nil {
				want, err := batch.Pack(skeleton, tc.budget, items)
				require.NoError(t, err)
				assert.Equal(t, want, got)
			}
		})
	}
}

func FuzzPack(f *testing.F) {
	f.Add("Question: explain the global trend.", 80, "community-1", strings.Repeat("Shared trend. ", 120), "c2", "")
	f.Add("", 2, "c1", "x", "", "")
	f.Add("a long prompt", 1, "c1", "x", "c2", "y")
	f.Add("q", 11, "c", "中文\xff😀e\u0301", "c", "\xe4\xb8")
	f.Add("", 20, "c1", strings.Repeat("x", 40), "c2", "z")
	f.Fuzz(func(t *testing.T, skeleton string, budget int, id1, text1, id2, text2 string) {
		items := []batch.Item{{ID: id1, Text: text1}, {ID: id2, Text: text2}}
		got, err := batch.Pack(skeleton, budget, items)
		// The reference estimates skeleton + part at every step: quadratic
		// when a long skeleton meets a long text cut into many parts.
		if len(skeleton)*(len(text1)+len(text2)+1) <= 1<<20 {
			want, wantErr := referencePack(skeleton, budget, items)
			require.Equal(t, wantErr, err)
			require.Equal(t, want, got)
		}
		if err != nil {
			var tooSmall *batch.TooSmallError
			require.True(t, errors.Is(err, batch.ErrPromptTooLarge) || errors.As(err, &tooSmall), "unexpected error %v", err)
			return
		}
		// The fit test with the skeleton counted once, not once per batch;
		// FuzzEstimate checks that counts add across the "\n".
		base := tokens.Of(skeleton + "\n")
		for _, b := range got {
			estimate := base.Add(tokens.Of(b.Content)).Tokens()
			require.LessOrEqual(t, estimate, budget, "fit test")
			require.Equal(t, estimate, b.Tokens, "Batch.Tokens")
			require.NotEmpty(t, b.IDs)
			require.NotEmpty(t, b.Content)
		}
		if parseable(items) {
			assertRoundTrip(t, items, got)
		}
	})
}

func BenchmarkPack(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	skeleton := strings.Repeat("You are helping answer a question. ", 30)
	for _, bc := range []struct {
		name   string
		budget int
		items  []batch.Item
	}{
		// Many map-text-sized items, some split: the prepare step's shape.
		{"ascii/10k-items", 7488, benchItems(rng, 10000, 2000, asciiFragments)},
		{"mixed/10k-items", 7488, benchItems(rng, 10000, 2000, allFragments)},
		// Few huge texts cut into many parts.
		{"ascii/huge", 7488, benchItems(rng, 4, 2_000_000, asciiFragments)},
		{"cjk/huge", 7488, benchItems(rng, 4, 1_000_000, cjkFragments)},
	} {
		size := 0
		for _, it := range bc.items {
			size += len(it.Text)
		}
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(size))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := batch.Pack(skeleton, bc.budget, bc.items); err != nil {
					b.Fatal(err)
				}
			}
		})
		// One counting pass over the same bytes: the floor Pack's MB/s is
		// measured against (the goal is within 3x of it).
		b.Run(bc.name+"/count-only", func(b *testing.B) {
			b.SetBytes(int64(size))
			var c tokens.Count
			for b.Loop() {
				for _, it := range bc.items {
					c = c.Add(tokens.Of(it.Text))
				}
			}
			if c.Runes() == 0 {
				b.Fatal("nothing counted")
			}
		})
	}
}

// referencePack is docs/contract.md#batching written the obvious way: every decision
// builds the candidate prompt and estimates it whole.
func referencePack(skeleton string, budget int, items []batch.Item) ([]batch.Batch, error) {
	return referencePackPadded(skeleton, "", budget, items)
}

// referencePackPadded is referencePack whose fit test measures pad beside
// the skeleton, as the question allowance does (docs/contract.md#batching),
// while each batch's Tokens measures the skeleton alone.
func referencePackPadded(skeleton, pad string, budget int, items []batch.Item) ([]batch.Batch, error) {
	fits := func(content string) bool { return tokens.Estimate(skeleton+pad+"\n"+content) <= budget }
	if !fits("") {
		return nil, batch.ErrPromptTooLarge
	}
	type part struct{ id, rendered string }
	var parts []part
	for _, it := range items {
		// Code point boundaries; an invalid byte is a code point of its own.
		var bounds []int
		for off := range it.Text {
			bounds = append(bounds, off)
		}
		bounds = append(bounds, len(it.Text))
		n := len(bounds) - 1
		widest := referenceHeader(it.ID, 9999999) + "\n"
		if n == 0 {
			// An empty text is one empty part, sized like every other part.
			if !fits(widest) {
				return nil, &batch.TooSmallError{ID: it.ID}
			}
			parts = append(parts, part{it.ID, referenceHeader(it.ID, 1) + "\n"})
			continue
		}
		for start, number := 0, 1; start < n; number++ {
			best := 0
			// Every code point costs at least 1/4 token, so no part is longer
			// than 4*budget: searching [1, remaining] capped there finds the
			// same length without estimating megabytes per step.
			for lo, hi := 1, min(n-start, 4*min(max(budget, 0), n)+1); lo <= hi; {
				mid := (lo + hi) / 2
				if fits(widest + it.Text[bounds[start]:bounds[start+mid]]) {
					best, lo = mid, mid+1
				} else {
					hi = mid - 1
				}
			}
			if best == 0 {
				return nil, &batch.TooSmallError{ID: it.ID}
			}
			parts = append(parts, part{it.ID, referenceHeader(it.ID, number) + "\n" + it.Text[bounds[start]:bounds[start+best]]})
			start += best
		}
	}

	var (
		batches []batch.Batch
		current []string
		ids     []string
	)
	flush := func() {
		if len(current) == 0 {
			return
		}
		content := strings.Join(current, "\n")
		batches = append(batches, batch.Batch{IDs: ids, Content: content, Tokens: tokens.Estimate(skeleton + "\n" + content)})
		current, ids = nil, nil
	}
	for _, p := range parts {
		if len(current) > 0 && !fits(strings.Join(append(current[:len(current):len(current)], p.rendered), "\n")) {
			flush()
		}
		current = append(current, p.rendered)
		seen := false
		for _, id := range ids {
			seen = seen || id == p.id
		}
		if !seen {
			ids = append(ids, p.id)
		}
	}
	flush()
	return batches, nil
}

const headerPrefix = "[Community ID: "

func referenceHeader(id string, part int) string {
	return headerPrefix + id + " | summary part " + strconv.Itoa(part) + "]"
}

// assertFits checks the docs/contract.md#batching fit test on one batch, and that the batch
// reports the estimate it was tested with.
func assertFits(t testing.TB, skeleton string, budget int, b batch.Batch) {
	t.Helper()
	estimate := tokens.Estimate(skeleton + "\n" + b.Content)
	assert.LessOrEqual(t, estimate, budget, "fit test")
	assert.Equal(t, estimate, b.Tokens, "Batch.Tokens")
	assert.NotEmpty(t, b.IDs, "a batch holds at least one id")
	assert.NotEmpty(t, b.Content, "a batch holds at least one part")
}

// assertRoundTrip parses the parts out of the batches and checks that they
// number 1..n per item, in item order, that each item's parts concatenate
// back to its text, and that each batch lists the ids of its parts in
// first-seen order without duplicates. Texts must not contain headerPrefix.
func assertRoundTrip(t testing.TB, items []batch.Item, batches []batch.Batch) {
	t.Helper()
	type parsed struct {
		id     string
		number int
		text   string
	}
	var parts []parsed
	for bi, b := range batches {
		var ids []string
		for i, chunk := range strings.Split(b.Content, "\n"+headerPrefix) {
			if i > 0 {
				chunk = headerPrefix + chunk
			}
			header, text, ok := strings.Cut(chunk, "\n")
			if !assert.True(t, ok, "batch %d part %d: no newline after the header", bi, i) {
				return
			}
			id, number, ok := parseHeader(header)
			if !assert.True(t, ok, "batch %d part %d: bad header %q", bi, i, header) {
				return
			}
			parts = append(parts, parsed{id, number, text})
			if !contains(ids, id) {
				ids = append(ids, id)
			}
		}
		assert.Equal(t, ids, b.IDs, "batch %d ids", bi)
	}
	next := 0
	for ii, it := range items {
		var text strings.Builder
		number := 0
		for next < len(parts) && (number == 0 || parts[next].number > 1) && parts[next].id == it.ID {
			number++
			assert.Equal(t, number, parts[next].number, "item %d: part number", ii)
			text.WriteString(parts[next].text)
			next++
		}
		assert.Positive(t, number, "item %d (%s) has no part", ii, it.ID)
		assert.Equal(t, it.Text, text.String(), "item %d (%s) text", ii, it.ID)
	}
	assert.Equal(t, len(parts), next, "parts left over")
}

// parseable reports whether assertRoundTrip can parse the parts of items
// back out of their batches unambiguously.
func parseable(items []batch.Item) bool {
	for _, it := range items {
		if strings.Contains(it.Text, headerPrefix) || strings.ContainsAny(it.ID, "\n]") ||
			strings.Contains(it.ID, headerPrefix) || strings.Contains(it.ID, " | summary part ") {
			return false
		}
	}
	return true
}

func parseHeader(h string) (string, int, bool) {
	rest, ok := strings.CutPrefix(h, headerPrefix)
	if !ok || !strings.HasSuffix(rest, "]") {
		return "", 0, false
	}
	rest = strings.TrimSuffix(rest, "]")
	i := strings.LastIndex(rest, " | summary part ")
	if i < 0 {
		return "", 0, false
	}
	n, err := strconv.Atoi(rest[i+len(" | summary part "):])
	return rest[:i], n, err == nil
}

func contains(ids []string, id string) bool {
	for _, have := range ids {
		if have == id {
			return true
		}
	}
	return false
}

var (
	asciiFragments = []string{"The ", "global ", "trend ", "is ", "rising. ", "x", "\n", "  ", "42 ", "a-b_c "}
	cjkFragments   = []string{"全球", "趋势", "社区", "摘要。", "中", "文"}
	otherFragments = []string{
		"😀", "🎉 ", "café ", "e\u0301", "naïve ", "Ω", "\u00a0", "\ufeff",
		"\xff", "\xfe\xfd", "\xc3", "\xe4\xb8", "\xf0\x9f\x98", "\x80", // invalid UTF-8
	}
	allFragments = append(append(append([]string{}, asciiFragments...), cjkFragments...), otherFragments...)
)

func randomText(rng *rand.Rand, maxFragments int, fragments []string) string {
	var b strings.Builder
	for range rng.IntN(maxFragments + 1) {
		b.WriteString(fragments[rng.IntN(len(fragments))])
	}
	return b.String()
}

func randomInput(rng *rand.Rand) (string, int, []batch.Item) {
	skeleton := randomText(rng, []int{0, 3, 30, 120}[rng.IntN(4)], allFragments)
	var items []batch.Item
	for range rng.IntN(8) {
		var text string
		switch rng.IntN(40) {
		case 0, 1, 2, 3:
			text = ""
		case 4:
			text = randomText(rng, 8000, allFragments) // huge: many parts
		case 5, 6, 7, 8, 9:
			text = randomText(rng, 400, cjkFragments)
		default:
			text = randomText(rng, 400, allFragments)
		}
		var id string
		switch rng.IntN(6) {
		case 0:
			id = "" // an empty id still gets its header
		case 1:
			id = "社区-" + strconv.Itoa(rng.IntN(3)) // non-ASCII id
		case 2:
			if len(items) > 0 {
				id = items[rng.IntN(len(items))].ID // a repeated id
				break
			}
			fallthrough
		default:
			id = "community-" + strconv.Itoa(rng.IntN(1000))
		}
		items = append(items, batch.Item{ID: id, Text: text})
	}
	// Budgets from "the skeleton barely fails" up to several parts' worth.
	base := tokens.Estimate(skeleton + "\n")
	var budget int
	switch rng.IntN(4) {
	case 0:
		budget = base - 1 + rng.IntN(4)
	case 1:
		budget = base + 5 + rng.IntN(20)
	default:
		budget = base + 10 + rng.IntN(600)
	}
	return skeleton, budget, items
}

func benchItems(rng *rand.Rand, n, fragments int, from []string) []batch.Item {
	items := make([]batch.Item, n)
	for i := range items {
		items[i] = batch.Item{ID: fmt.Sprintf("community-%05d", i), Text: randomText(rng, fragments, from)}
	}
	return items
}

func describe(items []batch.Item) string {
	var b strings.Builder
	for _, it := range items {
		if len(it.Text) > 200 {
			fmt.Fprintf(&b, "{%q, %d bytes, %d runes} ", it.ID, len(it.Text), utf8.RuneCountInString(it.Text))
			continue
		}
		fmt.Fprintf(&b, "{%q, %q} ", it.ID, it.Text)
	}
	return b.String()
}

func TestParseHeaderReadsHeader(t *testing.T) {
	for _, tc := range []struct {
		id   string
		part int
	}{{"c1", 1}, {"c-2 | odd", 12}, {"社区", 3}} {
		id, part, ok := batch.ParseHeader(" " + batch.Header(tc.id, tc.part) + "\n")
		assert.True(t, ok)
		assert.Equal(t, tc.id, id)
		assert.Equal(t, tc.part, part)
	}
	for _, line := range []string{"[Community ID: c1]", "[Community summary]", "Community ID: c1 | summary part 1"} {
		_, _, ok := batch.ParseHeader(line)
		assert.False(t, ok, line)
	}
}
