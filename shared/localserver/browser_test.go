package localserver

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/api"
	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/indexfile"
)

// screenshotVariable names the file the page test writes a screenshot of
// the answer with a citation opened to (the README's docs/serve.png), a
// path relative to the repository root; unset, no screenshot is taken.
const screenshotVariable = "SERVE_SCREENSHOT"

// browserBound bounds one browser session so that a hung browser fails
// the test instead of the suite; no assertion depends on it.
const browserBound = 2 * time.Minute

// findBrowser is the headless browser the page test drives: Debian's
// chromium, or another Chrome on PATH. Under CI a missing browser fails
// the test (.ci/run installs chromium); elsewhere the test skips.
func findBrowser(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "headless-shell"} {
		if path, err := exec.LookPath(name); err == nil {
			return path
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("no headless browser on PATH (chromium): .ci/run installs it with apt-get install -y chromium")
	}
	t.Skip("no headless browser on PATH: install chromium (apt-get install -y chromium) to run the page test")
	return ""
}

// browse is a browser tab, its browser started with the extra options too;
// it ends with the test.
func browse(t *testing.T, extra ...chromedp.ExecAllocatorOption) context.Context {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(findBrowser(t)), chromedp.WindowSize(1360, 900))
	opts = append(opts, extra...)
	if os.Geteuid() == 0 {
		// Chromium refuses to run as root with its sandbox (containers, CI).
		opts = append(opts, chromedp.NoSandbox)
	}
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancelAlloc)
	ctx, cancelTab := chromedp.NewContext(alloc)
	t.Cleanup(cancelTab)
	ctx, cancelBound := context.WithTimeout(ctx, browserBound)
	t.Cleanup(cancelBound)
	return ctx
}

// ask types question on the page at url, asks it, waits for the answer and
// opens its first citation; it returns the cited id.
func ask(ctx context.Context, url, question string) (string, error) {
	err := chromedp.Do(ctx,
		chromedp.Navigate(url),
		chromedp.WaitVisible(chromedp.ID("query")),
		chromedp.SendKeys(chromedp.ID("query"), question),
		chromedp.Click(chromedp.ID("ask-button")),
		chromedp.WaitVisible(chromedp.CSS("#answer button.cite")),
	)
	if err != nil {
		return "", err
	}
	id, err := chromedp.Run(ctx, chromedp.AttributeValue(chromedp.CSS("#answer button.cite"), "data-id"))
	if err != nil {
		return "", err
	}
	return id.Value, chromedp.Do(ctx,
		chromedp.Click(chromedp.CSS("#answer button.cite")),
		chromedp.WaitVisible(chromedp.ID("community")),
	)
}

// text is the exact text (textContent) of the element with id.
func text(t *testing.T, ctx context.Context, id string) string {
	t.Helper()
	s, err := chromedp.Run(ctx, chromedp.TextContent(chromedp.ID(id)))
	require.NoError(t, err)
	return s
}

// pageCount is how many elements match the CSS selector sel.
func pageCount(t *testing.T, ctx context.Context, sel string) int {
	t.Helper()
	n, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll(`+strconv.Quote(sel)+`).length`))
	require.NoError(t, err)
	return n
}

func summaryOf(t *testing.T, f indexfile.File, id string) globalsearch.Summary {
	t.Helper()
	for _, s := range f.Records.Summaries {
		if s.ID == id {
			return s
		}
	}
	require.Failf(t, "cited community not in the index", "%s", id)
	return globalsearch.Summary{}
}

func TestServePageInABrowser(t *testing.T) {
	ctx := browse(t)
	l, srv := localServer(t, nil)
	const question = "What are the main themes across Veloria's development over the decade?"
	id, err := ask(ctx, srv.URL+"/", question)
	require.NoError(t, err)

	title, summary := text(t, ctx, "community-title"), text(t, ctx, "community-summary")
	planLine, status, answer := text(t, ctx, "plan-line"), text(t, ctx, "run-status"), text(t, ctx, "answer")
	claims := pageCount(t, ctx, "#community-claims li:not(.muted)")
	excerpts := pageCount(t, ctx, "#community-excerpts blockquote")
	want := summaryOf(t, sampleFile(t), id)
	assert.Equal(t, want.Title, title)
	assert.Equal(t, want.Summary, summary)

	queryID := strings.TrimPrefix(status, "completed · ")
	res, err := l.runs.Result(context.Background(), queryID)
	require.NoError(t, err, "the page shows the query id of a completed run: %q", status)
	assert.Equal(t, res.Answer, answer, "the answer reads as the model wrote it")
	for _, c := range res.Citations {
		if c.CommunityID == id {
			assert.Equal(t, len(c.ClaimIDs), claims)
			assert.Equal(t, len(c.ChunkIDs), excerpts)
		}
	}
	assert.Contains(t, planLine, "map batches")

	if path := os.Getenv(screenshotVariable); path != "" {
		png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
		require.NoError(t, err)
		if !filepath.IsAbs(path) {
			path = filepath.Join("..", "..", path)
		}
		require.NoError(t, os.WriteFile(path, png, 0o644))
	}
}

// Index and model text reach the page as text: markup in a title, a
// summary or an answer is shown, never run or rendered.
func TestServePageShowsMarkupAsText(t *testing.T) {
	ctx := browse(t)
	hostile := `<img src=x onerror="document.title='run'">`
	f := smallIndex()
	for i := range f.Records.Summaries {
		f.Records.Summaries[i].Title = "<b>" + f.Records.Summaries[i].ID + "</b>"
		f.Records.Summaries[i].Summary += " Solar farms " + hostile + " replaced diesel."
	}
	_, srv := localServerOver(t, f, nil)
	id, err := ask(ctx, srv.URL+"/", "How did solar farms replace diesel?")
	require.NoError(t, err)

	title := text(t, ctx, "community-title")
	docTitle, err := chromedp.Run(ctx, chromedp.Title())
	require.NoError(t, err)
	markup := pageCount(t, ctx, "main img, main b")
	assert.Equal(t, summaryOf(t, f, id).Title, title)
	assert.Contains(t, text(t, ctx, "community-summary"), hostile)
	assert.Contains(t, text(t, ctx, "answer"), hostile, "the answer quotes the markup as text")
	assert.Equal(t, "graphrag-global", docTitle, "no script of the index ran")
	assert.Zero(t, markup, "no element was made of index or model text")
}

// progressAPI answers the page's query routes as the API answers a run in
// flight (docs/contract.md#serve): 202 to the POST, running with map
// progress to every GET until a DELETE, then cancelled.
type progressAPI struct {
	deleted chan struct{}
}

func (p *progressAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	switch r.Method {
	case http.MethodPost:
		w.WriteHeader(http.StatusAccepted)
		io.WriteString(w, `{"queryId":"q-1","status":"running","location":"/namespaces/sample/queries/q-1"}`)
	case http.MethodDelete:
		close(p.deleted)
		w.WriteHeader(http.StatusAccepted)
		io.WriteString(w, `{"queryId":"q-1","status":"cancelled"}`)
	default:
		select {
		case <-p.deleted:
			// What a stopped run spent (docs/contract.md#cancel).
			io.WriteString(w, `{"queryId":"q-1","status":"cancelled","answer":"","diagnostics":{"summaryCount":12,"batchCount":4,`+
				`"modelCalls":8,"inputTokens":900,"outputTokens":0,"shuffleSeed":1,"cost":{"mapUsd":0.0125,"reduceUsd":0}}}`)
		default:
			io.WriteString(w, `{"queryId":"q-1","status":"running","progress":{"map":{"done":2,"failed":1,"total":4}}}`)
		}
	}
}

// waitFor waits until the JavaScript predicate holds, checking on every
// change of the page.
func waitFor(ctx context.Context, predicate string) error {
	_, err := chromedp.Run(ctx, chromedp.Poll[bool](predicate, chromedp.WithPollingMutation(), chromedp.WithPollingTimeout(0)))
	return err
}

func TestServePageShowsProgressAndCancels(t *testing.T) {
	ctx := browse(t)
	l, _ := localServer(t, nil)
	mux := http.NewServeMux()
	mux.Handle("/", l.routes())
	fake := &progressAPI{deleted: make(chan struct{})}
	mux.Handle("/namespaces/{namespace}/queries/", fake)
	mux.Handle("POST /namespaces/{namespace}/queries", fake)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)

	require.NoError(t, chromedp.Do(ctx,
		chromedp.Navigate(srv.URL+"/"),
		chromedp.SendKeys(chromedp.ID("query"), "What are the main themes?"),
		chromedp.Click(chromedp.ID("ask-button")),
		chromedp.WaitVisible(chromedp.ID("progress")),
	))
	require.NoError(t, waitFor(ctx, `document.getElementById("progress-text").textContent !== ""`))
	assert.Equal(t, "map 2/4, 1 failed", text(t, ctx, "progress-text"))
	value, err := chromedp.Run(ctx, chromedp.Evaluate[float64](`document.getElementById("progress").value`))
	require.NoError(t, err)
	assert.Equal(t, 3.0, value, "done and failed batches fill the bar")

	require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.ID("cancel-button"))))
	require.NoError(t, waitFor(ctx, `document.getElementById("run-status").textContent.startsWith("cancelled")`))
	assert.Equal(t, "cancelled · q-1", text(t, ctx, "run-status"))
	assert.Equal(t, 0, pageCount(t, ctx, "#cancel-button:not([hidden])"), "nothing left to cancel")
	assert.Equal(t, "12 summaries · 4 batches · 8 model calls · tokens in 900 out 0 · seed 1 · cost ~$0.0125",
		text(t, ctx, "stats"), "the spend of the cancelled run")
}

// resultAPI answers the page's POST with 202 and every GET with res as
// the API's GET answers it (api.NewResultReply).
type resultAPI struct{ res globalsearch.Result }

func (a resultAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	if r.Method == http.MethodPost {
		w.WriteHeader(http.StatusAccepted)
		io.WriteString(w, `{"queryId":"q-1","status":"running","location":"/namespaces/sample/queries/q-1"}`)
		return
	}
	json.NewEncoder(w).Encode(api.NewResultReply(a.res))
}

// The page shows the coverage line and the citation marks the server
// read (docs/contract.md#result-reading), not a reading of its own: the
// second mark's blank is a no-break space, which JavaScript's \s matches
// and the engine's reading does not, so it stays text though its id is
// cited; the é before the first mark shifts byte offsets from the
// string's.
func TestServePageShowsTheCoverageLine(t *testing.T) {
	ctx := browse(t)
	l, _ := localServer(t, nil)
	answer := "Ports grew é [Data: Community ( c0-economy ,+more)] and [Data:\u00a0Communities (c0-economy)] and [Data: Communities (invented)]."
	res := globalsearch.Result{QueryID: "q-1", Namespace: "sample", Status: globalsearch.StatusCompleted, Answer: answer,
		Citations: []globalsearch.Citation{{CommunityID: "c0-economy", ClaimIDs: []string{}, ChunkIDs: []string{}}}}
	res.Diagnostics = globalsearch.Diagnostics{SummaryCount: 36, BatchCount: 4, ModelCalls: 5, InputTokens: 10, OutputTokens: 2, ShuffleSeed: 1,
		Coverage: globalsearch.Coverage{CommunitiesSelected: 36, CommunitiesInNamespace: 50, Claims: 110, Excerpts: 36, Documents: 20,
			MapAnswers:       &globalsearch.MapAnswerCoverage{Useful: 3, ReachedReduce: 2, SkippedForBudget: 1, ScoredZero: 1},
			CitedCommunities: 1, CitedDocuments: 4}}
	mux := http.NewServeMux()
	mux.Handle("/", l.routes())
	mux.Handle("/namespaces/{namespace}/queries/", resultAPI{res})
	mux.Handle("POST /namespaces/{namespace}/queries", resultAPI{res})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)

	require.NoError(t, chromedp.Do(ctx,
		chromedp.Navigate(srv.URL+"/"),
		chromedp.SendKeys(chromedp.ID("query"), "What are the main themes?"),
		chromedp.Click(chromedp.ID("ask-button")),
		chromedp.WaitVisible(chromedp.ID("coverage")),
	))
	assert.Equal(t, "coverage: 36 of 50 communities, 110 claims, 36 excerpts from 20 documents; "+
		"4 map answers: 3 useful, 2 reached reduce, 1 skipped for the reduce budget, 1 scored 0, 0 failed; "+
		"the answer cites 1 community in 4 documents; --reduce-mode tree would keep the 1 useful answer skipped for the reduce budget", text(t, ctx, "coverage"))
	assert.Equal(t, res.Diagnostics.Coverage.LineWithReduceHint(), text(t, ctx, "coverage"), "the page words coverage as run does")
	assert.Equal(t, answer, text(t, ctx, "answer"), "a mark keeps its exact text")
	ids, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll("#answer button.cite")].map(b => b.dataset.id)`))
	require.NoError(t, err)
	assert.Equal(t, []string{"c0-economy"}, ids, "only the marks the engine reads, and ids the result cites, open a community")
	marks, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll("#answer span.mark").length`))
	require.NoError(t, err)
	assert.Equal(t, len(globalsearch.MarkSpans(answer)), marks, "a mark for each the engine reads")
}
