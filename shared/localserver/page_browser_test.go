package localserver

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/indexfile/indexfiletest"
	"github.com/graphrag-global/graphrag-global/shared/llm/offline"
	"github.com/graphrag-global/graphrag-global/shared/lookup"
)

// The answer appears on the page while the model writes it, before the
// run ends, and the result then replaces it with the answer as stored.
func TestServePageStreamsTheAnswer(t *testing.T) {
	ctx := browse(t)
	model := newSlowReduce()
	l, srv := localServer(t, func(c *Config) { c.Engine.Model = model })
	require.NoError(t, chromedp.Do(ctx,
		chromedp.Navigate(srv.URL+"/"),
		chromedp.SendKeys(chromedp.ID("query"), "What are the main themes across Veloria's development over the decade?"),
		chromedp.Click(chromedp.ID("ask-button")),
	))
	require.NoError(t, waitFor(ctx, `document.getElementById("answer").textContent.length > 0 && !document.getElementById("writing").hidden`))
	streamed, status := text(t, ctx, "answer"), text(t, ctx, "run-status")
	queryID := strings.TrimPrefix(status, "running ")
	execution, _, err := l.starter.Execution(context.Background(), queryID)
	require.NoError(t, err)
	assert.Equal(t, "RUNNING", execution, "the text is on the page before the run ends")
	streaming := pageCount(t, ctx, "#answer.streaming")

	close(model.release)
	require.NoError(t, waitFor(ctx, `document.getElementById("run-status").textContent.startsWith("completed")`))
	res, err := l.runs.Result(context.Background(), queryID)
	require.NoError(t, err)
	assert.Equal(t, 1, streaming, "the answer is marked as being written")
	assert.True(t, strings.HasPrefix(res.Answer, streamed), "the page showed the start of the answer: %q", streamed)
	assert.Less(t, len(streamed), len(res.Answer), "only its start, while the model held the rest")
	assert.Equal(t, res.Answer, text(t, ctx, "answer"), "the stored answer replaced the stream")
	assert.Zero(t, pageCount(t, ctx, "#answer.streaming, #writing:not([hidden])"))
	assert.Positive(t, pageCount(t, ctx, "#answer button.cite"), "with its citations")
}

// recorder answers the plans route with 422 after keeping the body the
// page sent, so each test reads what the controls put in the request.
type recorder struct {
	mu     sync.Mutex
	bodies []map[string]any
}

func (r *recorder) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	data, _ := io.ReadAll(req.Body)
	var body map[string]any
	_ = json.Unmarshal(data, &body)
	r.mu.Lock()
	r.bodies = append(r.bodies, body)
	r.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusUnprocessableEntity)
	io.WriteString(w, `{"error":"plan_too_large","message":"recorded"}`)
}

func (r *recorder) last() map[string]any {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.bodies[len(r.bodies)-1]
}

// The level select offers the levels of the namespace, leaf, auto and
// GraphRAG's community level; the selection and reduce controls reach
// the request as the API names them.
func TestServePageControlsReachTheRequest(t *testing.T) {
	ctx := browse(t)
	l, _ := localServer(t, nil)
	rec := &recorder{}
	mux := http.NewServeMux()
	mux.Handle("/", l.routes())
	mux.Handle("POST /namespaces/{namespace}/plans", rec)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/"), chromedp.WaitVisible(chromedp.ID("query"))))
	require.NoError(t, waitFor(ctx, `document.querySelectorAll("#level option").length > 3`))

	options, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll("#level option")].map(o => o.value)`))
	require.NoError(t, err)
	want := []string{"", "leaf", "auto"}
	levels := map[int]bool{}
	for _, s := range sampleFile(t).Records.Summaries {
		levels[s.Level] = true
	}
	for l := range len(levels) {
		want = append(want, strconv.Itoa(l))
	}
	for l := range len(levels) {
		want = append(want, "graphrag:"+strconv.Itoa(l))
	}
	assert.Equal(t, want, options, "every level that exists, once as ours and once as GraphRAG's")

	tests := []struct {
		name    string
		set     string // JavaScript that sets the controls
		want    map[string]any
		without []string
	}{
		{"the defaults send none", ``, map[string]any{}, []string{"communityLevel", "selection", "ratingThreshold", "reduceMode"}},
		{"a level", `level.value = "2"`, map[string]any{"communityLevel": 2.0}, nil},
		{"leaf", `level.value = "leaf"`, map[string]any{"communityLevel": "leaf"}, nil},
		{"GraphRAG's community level", `level.value = "graphrag:1"`, graphragLevelRequest(1), nil},
		{"dynamic selection", `dynamic.click()`, map[string]any{"selection": "dynamic"}, []string{"ratingThreshold"}},
		{"dynamic selection with a threshold", `dynamic.click(); threshold.value = "3"`, map[string]any{"selection": "dynamic", "ratingThreshold": 3.0}, nil},
		{"a threshold without dynamic selection is not sent", `threshold.disabled = false; threshold.value = "3"`, map[string]any{}, []string{"ratingThreshold"}},
		{"tree reduce", `mode.value = "tree"`, map[string]any{"reduceMode": "tree"}, nil},
		{"single reduce", `mode.value = "single"`, map[string]any{"reduceMode": "single"}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/"), chromedp.WaitVisible(chromedp.ID("query"))))
			require.NoError(t, waitFor(ctx, `document.querySelectorAll("#level option").length > 3`))
			_, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`(() => { const level = document.getElementById("level"),
				dynamic = document.getElementById("dynamic"), threshold = document.getElementById("rating-threshold"),
				mode = document.getElementById("reduce-mode"); `+tc.set+`; return true })()`))
			require.NoError(t, err)
			require.NoError(t, chromedp.Do(ctx,
				chromedp.SendKeys(chromedp.ID("query"), "What are the main themes?"),
				chromedp.Click(chromedp.ID("plan-button")),
				chromedp.WaitVisible(chromedp.ID("error")),
			))
			body := rec.last()
			assert.Equal(t, "What are the main themes?", body["query"])
			for k, v := range tc.want {
				assert.Equal(t, v, body[k], k)
			}
			for _, k := range tc.without {
				assert.NotContains(t, body, k)
			}
		})
	}
}

// graphragLevelRequest is the request fields of GraphRAG's community
// level n, as the page's graphragLevel writes them.
func graphragLevelRequest(n int) map[string]any {
	return map[string]any{"communityLevel": "graphrag:" + strconv.Itoa(n)}
}

// The page names the models serve runs: one, or the map's and the
// reduce's.
func TestServePageNamesItsModels(t *testing.T) {
	tests := []struct {
		name   string
		reduce globalsearch.Model
		want   string
	}{
		{"one model", nil, "model: offline"},
		{"a model per stage", globalsearch.TimeoutModel{Model: offline.New(), Name: "openai:llama3.1@http://127.0.0.1:11434/v1"},
			"map model: offline · reduce model: openai:llama3.1@http://127.0.0.1:11434/v1"},
		{"a model serve did not open", offline.New(), "map model: offline · reduce model: in-process model"},
	}
	ctx := browse(t)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, srv := localServer(t, func(c *Config) { c.Engine.ReduceModel = tc.reduce })
			require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/"), chromedp.WaitVisible(chromedp.ID("models"))))
			assert.Equal(t, tc.want, text(t, ctx, "models"))
		})
	}
}

// The browse view lists every report by level and opens any of them in
// the side panel: its title, its summary without the "# Title" line a
// GraphRAG report opens with, its documents by title, entities and
// relationships, long ids wrapped inside the panel.
func TestServePageBrowsesReports(t *testing.T) {
	ctx := browse(t)
	f := indexfiletest.Graph()
	longID := strings.Repeat("9f3c", 32) // a GraphRAG document id: 128 hex characters
	f.Records.Chunks[0].DocumentID = longID
	f.Records.Chunks[0].DocumentTitle = ""
	for i, s := range f.Records.Summaries {
		f.Records.Summaries[i].Summary = "# " + s.Title + "\n\n" + s.Summary
	}
	_, srv := localServerOver(t, f, nil)
	require.NoError(t, chromedp.Do(ctx,
		chromedp.Navigate(srv.URL+"/"),
		chromedp.Click(chromedp.ID("browse-button")),
		chromedp.WaitVisible(chromedp.CSS("#browse-levels button.report")),
	))
	ids, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll("#browse-levels button.report")].map(b => b.dataset.id)`))
	require.NoError(t, err)
	assert.Equal(t, []string{"root", "fish", "solar"}, ids, "every report, by level")
	assert.Equal(t, "3 reports in 2 levels", text(t, ctx, "browse-line"))

	require.NoError(t, chromedp.Do(ctx,
		chromedp.Click(chromedp.CSS(`#browse-levels button.report[data-id="root"]`)),
		chromedp.WaitVisible(chromedp.ID("community")),
	))
	root := f.Records.Summaries[0]
	assert.Equal(t, root.Title, text(t, ctx, "community-title"))
	assert.Equal(t, strings.TrimPrefix(root.Summary, "# "+root.Title+"\n\n"), text(t, ctx, "community-summary"), "no raw title line")
	assert.Equal(t, "root · level 0 · 2 sub-communities", text(t, ctx, "community-meta"))
	var rec lookup.Record
	got := overHTTP(t, srv, http.MethodGet, "/namespaces/tiny/records/root?kind=community", "", nil)
	require.NoError(t, json.Unmarshal([]byte(got.body), &rec))
	assert.Equal(t, len(rec.Community.Entities), pageCount(t, ctx, "#community-entities li:not(.muted)"))
	assert.Equal(t, len(rec.Community.Relationships), pageCount(t, ctx, "#community-relationships li:not(.muted)"))
	assert.Contains(t, text(t, ctx, "community-entities"), "GRID (ORGANIZATION): The island grid.")
	assert.Contains(t, text(t, ctx, "community-relationships"), "GRID → FLEET: The fleet's harbour runs on the grid.")
	assert.Contains(t, text(t, ctx, "community-excerpts"), "text unit unit-7 · document "+longID)
	assert.Equal(t, longID, text(t, ctx, "community-documents"))
	overflow, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`(() => { const c = document.getElementById("community");
		return [...c.querySelectorAll("*")].some(e => e.getBoundingClientRect().right > c.getBoundingClientRect().right + 1) })()`))
	require.NoError(t, err)
	assert.False(t, overflow, "the long id wraps inside the panel")
}

// A citation opens the cited community with the claims and excerpts of
// the query, its excerpts named by text unit and document title, and the
// community's entities and relationships.
func TestServePageSidePanelOfACitation(t *testing.T) {
	ctx := browse(t)
	f := indexfiletest.Graph()
	_, srv := localServerOver(t, f, nil)
	id, err := ask(ctx, srv.URL+"/", "How did solar farms replace diesel?")
	require.NoError(t, err)
	require.Equal(t, "solar", id, "the answer cites the community of the question")
	var rec lookup.Record
	got := overHTTP(t, srv, http.MethodGet, "/namespaces/tiny/records/"+id+"?kind=community", "", nil)
	require.NoError(t, json.Unmarshal([]byte(got.body), &rec))
	assert.Equal(t, rec.Community.Title, text(t, ctx, "community-title"))
	assert.Equal(t, len(rec.Community.Entities), pageCount(t, ctx, "#community-entities li:not(.muted)"))
	assert.Equal(t, len(rec.Community.Relationships), pageCount(t, ctx, "#community-relationships li:not(.muted)"))
	assert.Contains(t, text(t, ctx, "community-excerpts"), "text unit unit-7 · Island energy report")
	assert.Equal(t, "Island energy report (doc-1)", text(t, ctx, "community-documents"))
	assert.Equal(t, 1, pageCount(t, ctx, "#community-claims li:not(.muted)"), "the claim the query's map text held")
}
