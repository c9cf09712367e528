package globalsearch_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/store/memstore"
	"github.com/graphrag-global/graphrag-global/shared/tokens"
)

// benchIndex is a generated namespace of 10,000 summaries in three levels
// (100 roots, 900 mid-level, 9,000 leaves), ~3 claims per leaf citing ~2 of
// 10,000 source chunks: about 20 MB of text. It is built once per process.
var benchIndex = sync.OnceValues(func() (*memstore.Store, int) {
	rng := rand.New(rand.NewPCG(42, 42))
	var r globalsearch.Records
	size := 0
	text := func(words int) string {
		s := benchText(rng, words)
		size += len(s)
		return s
	}
	const roots, mids, leaves, chunks = 100, 900, 9000, 10000
	for i := range roots {
		r.Summaries = append(r.Summaries, globalsearch.Summary{ID: fmt.Sprintf("c0-%03d", i), Level: 0, Title: text(6), Summary: text(150)})
	}
	for i := range mids {
		r.Summaries = append(r.Summaries, globalsearch.Summary{ID: fmt.Sprintf("c1-%04d", i), Level: 1, ParentCommunityID: fmt.Sprintf("c0-%03d", i%roots), Title: text(6), Summary: text(110)})
	}
	for i := range leaves {
		r.Summaries = append(r.Summaries, globalsearch.Summary{ID: fmt.Sprintf("c2-%04d", i), Level: 2, ParentCommunityID: fmt.Sprintf("c1-%04d", i%mids), Title: text(6), Summary: text(110)})
		for j := range 1 + rng.IntN(5) {
			cited := make([]string, rng.IntN(4))
			for k := range cited {
				cited[k] = fmt.Sprintf("chunk-%05d", rng.IntN(chunks))
			}
			r.Claims = append(r.Claims, globalsearch.Claim{
				ID: fmt.Sprintf("claim-%04d-%d", i, j), CommunityID: fmt.Sprintf("c2-%04d", i),
				Subject: text(2), Object: text(2), Description: text(18), SourceChunkIDs: cited,
			})
		}
	}
	for i := range chunks {
		r.Chunks = append(r.Chunks, globalsearch.Chunk{ID: fmt.Sprintf("chunk-%05d", i), Text: text(110), DocumentID: fmt.Sprintf("doc-%03d", i/50)})
	}
	s := memstore.New()
	if err := s.ReplaceNamespace(context.Background(), "bench", r); err != nil {
		panic(err)
	}
	return s, size
})

var benchWords = []string{
	"the", "port", "trade", "growth", "of", "renewable", "energy", "fisheries", "policy", "and",
	"drought", "housing", "university", "investment", "across", "decade", "coastal", "logistics",
	"全球趋势", "社区", "café", "naïve", "2019", "percent", "regional", "partnership", "Ω-index",
}

func benchText(rng *rand.Rand, words int) string {
	var b strings.Builder
	for i := range words {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(benchWords[rng.IntN(len(benchWords))])
		if rng.IntN(12) == 0 {
			b.WriteByte('.')
		}
	}
	return b.String()
}

func benchParams(level globalsearch.Level, queryID string) globalsearch.Params {
	return globalsearch.Params{
		QueryID: queryID, Query: "What are the main themes across the decade?", Namespace: "bench",
		CommunityLevel: level, MapTokenBudget: 8000, ReduceTokenBudget: 8000,
		MapOutputReserve: 512, ReduceOutputReserve: 1024, MapConcurrency: 4,
		ShuffleSeed: 7, Shuffle: true,
	}
}

// BenchmarkPrepare measures planning (docs/contract.md#prepare: select, map texts, split,
// pack) on the generated index: the prepare step's work before the save.
func BenchmarkPrepare(b *testing.B) {
	store, size := benchIndex()
	e := &globalsearch.Engine{Index: store, Runs: store}
	for _, bc := range []struct {
		name      string
		level     globalsearch.Level
		tokenizer string
	}{
		{"leaf", globalsearch.LeafLevel, ""},
		{"level0", 0, ""},
		// docs/contract.md#tokenizer: an exact count is far slower per byte.
		{"leaf-o200k", globalsearch.LeafLevel, tokens.NameO200k},
		{"leaf-calibrated", globalsearch.LeafLevel, tokens.NameCalibrated},
	} {
		b.Run(bc.name, func(b *testing.B) {
			ctx := context.Background()
			p := benchParams(bc.level, "bench-prepare")
			p.Tokenizer = bc.tokenizer
			// A warm-up plan first: a run of one iteration (o200k's, at the
			// default -benchtime) would otherwise time the vocabulary's load
			// as planning; b.Loop leaves what comes before it out.
			plan, err := e.Plan(ctx, p)
			if err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				if plan, err = e.Plan(ctx, p); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(plan.Batches)), "batches")
			b.ReportMetric(float64(plan.SummaryCount), "summaries")
			b.ReportMetric(float64(size)/1e6, "index-MB")
		})
	}
}

// latencyModel answers every call after a fixed latency and records when
// the map calls began and ended.
type latencyModel struct {
	latency time.Duration

	mu         sync.Mutex
	first, end time.Time
}

func (m *latencyModel) Complete(ctx context.Context, req globalsearch.ModelRequest) (globalsearch.ModelResponse, error) {
	start := time.Now()
	select {
	case <-time.After(m.latency):
	case <-ctx.Done():
		return globalsearch.ModelResponse{}, ctx.Err()
	}
	if req.Stage == globalsearch.StageReduce {
		return globalsearch.ModelResponse{Text: `{"answer":"Global trend"}`}, nil
	}
	m.mu.Lock()
	if m.first.IsZero() || start.Before(m.first) {
		m.first = start
	}
	if now := time.Now(); now.After(m.end) {
		m.end = now
	}
	m.mu.Unlock()
	return globalsearch.ModelResponse{Text: `{"answer":"Cross-sector trend","usefulness":72}`}, nil
}

func (m *latencyModel) makespan() time.Duration {
	m.mu.Lock()
	defer m.mu.Unlock()
	d := m.end.Sub(m.first)
	m.first, m.end = time.Time{}, time.Time{}
	return d
}

// BenchmarkSearchMapMakespan runs whole in-process searches of 40 one-summary
// batches against a model with a fixed latency, concurrency 4, and reports
// how far the map phase's makespan is from ceil(batches/4) * latency.
func BenchmarkSearchMapMakespan(b *testing.B) {
	const (
		batches     = 40
		concurrency = 4
		latency     = 20 * time.Millisecond // real models take seconds; 20 ms keeps timer slop out of the ratio
	)
	ctx := context.Background()
	var r globalsearch.Records
	rng := rand.New(rand.NewPCG(1, 1))
	for i := range batches {
		// ~1,200 tokens each under a 2,000-token map budget: one per batch.
		r.Summaries = append(r.Summaries, globalsearch.Summary{ID: fmt.Sprintf("c%02d", i), Level: 0, Summary: benchText(rng, 600)})
	}
	store := memstore.New()
	if err := store.ReplaceNamespace(ctx, "bench", r); err != nil {
		b.Fatal(err)
	}
	model := &latencyModel{latency: latency}
	e := &globalsearch.Engine{Index: store, Runs: store, Model: model}
	params := func(i int) globalsearch.Params {
		p := benchParams(0, fmt.Sprintf("bench-search-%d", i))
		p.MapTokenBudget, p.MapConcurrency = 2512, concurrency
		return p
	}
	plan, err := e.Plan(ctx, params(0))
	if err != nil {
		b.Fatal(err)
	}
	if len(plan.Batches) != batches {
		b.Fatalf("setup: %d batches, want %d", len(plan.Batches), batches)
	}
	ideal := time.Duration((batches+concurrency-1)/concurrency) * latency

	var total time.Duration
	i := 0
	for b.Loop() {
		res, err := e.Search(ctx, params(i))
		if err != nil {
			b.Fatal(err)
		}
		if res.Status != globalsearch.StatusCompleted {
			b.Fatalf("status %s: %s", res.Status, res.Error)
		}
		total += model.makespan()
		i++
	}
	b.ReportMetric(float64(total)/float64(i)/float64(ideal), "makespan/ideal")
	b.ReportMetric(float64(total)/float64(i)/1e6, "map-ms")
}

// BenchmarkAvailableLevels plans a level no summary has over 300,000 blank
// summaries, each at a level of its own: listing the levels that exist
// must not be quadratic in the summaries (docs/contract.md#selection).
func BenchmarkAvailableLevels(b *testing.B) {
	const n = 300_000
	r := globalsearch.Records{Summaries: make([]globalsearch.Summary, n)}
	for i := range r.Summaries {
		r.Summaries[i] = globalsearch.Summary{ID: fmt.Sprintf("c%06d", i), Level: n - i}
	}
	s := memstore.New()
	if err := s.ReplaceNamespace(context.Background(), "default", r); err != nil {
		b.Fatal(err)
	}
	absent := globalsearch.Level(n + 1)
	p, err := globalsearch.Request{Query: "q", CommunityLevel: &absent}.Params(globalsearch.SpecDefaults)
	if err != nil {
		b.Fatal(err)
	}
	e := &globalsearch.Engine{Index: s}
	b.ResetTimer()
	for range b.N {
		plan, err := e.Plan(context.Background(), p)
		if err != nil || len(plan.AvailableLevels) == 0 {
			b.Fatal(err, len(plan.AvailableLevels))
		}
	}
}
