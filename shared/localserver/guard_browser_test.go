package localserver

import (
	"context"
	"html/template"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/api"
)

// hostilePage is a page on another origin that, once loaded, tries to start
// searches on serve at Target by every request a page may send without the
// browser asking serve first (a "simple request"): a text/plain fetch in
// no-cors mode and a form posted as text/plain, whose one field spells a
// JSON body (name=value, the "=" inside the query). It tries a JSON fetch too, which needs the browser to ask. Its
// title says "done" when every try is answered, and window.tried how each
// went.
var hostilePage = template.Must(template.New("hostile").Parse(`<!doctype html>
<title>hostile</title>
<iframe name="sink"></iframe>
<form id="form" method="POST" enctype="text/plain" target="sink" action="{{.Target}}/namespaces/sample/queries">
<input name='{"query":"What are the main themes?' value='","queryId":"q-hostile-form"}'>
</form>
<script>
const queries = {{.Target}} + "/namespaces/sample/queries";
window.tried = [];
async function attempt(what, init) {
  try {
    const r = await fetch(queries, init);
    window.tried.push(what + ": " + r.type + " " + r.status);
  } catch (e) {
    window.tried.push(what + ": blocked");
  }
}
(async () => {
  await attempt("no-cors text/plain", { method: "POST", mode: "no-cors", headers: { "Content-Type": "text/plain" },
    body: '{"query":"What are the main themes?","queryId":"q-hostile-plain"}' });
  await attempt("cors json", { method: "POST", headers: { "Content-Type": "application/json" },
    body: '{"query":"What are the main themes?","queryId":"q-hostile-json"}' });
  await new Promise(done => {
    document.querySelector("iframe").onload = done;
    document.getElementById("form").submit();
  });
  document.title = "done";
})();
</script>`))

// rebound is the name the browser resolves to 127.0.0.1, as a hostile
// name would once its DNS rebinds.
const rebound = "rebound.test"

// A page on a second origin can neither start a search on serve nor, by a
// name rebound to 127.0.0.1, read one (docs/contract.md#serve-security).
func TestServeRefusesOtherPagesInABrowser(t *testing.T) {
	ctx := browse(t,
		chromedp.Flag("host-resolver-rules", "MAP "+rebound+" 127.0.0.1"),
		// An upgrade to https of a plain name would only slow the test.
		chromedp.Flag("disable-features", "HttpsUpgrades"))
	l, srv := localServer(t, nil)
	victim := overHTTP(t, srv, http.MethodPost, "/namespaces/sample/queries", `{"query":"What are the main themes?"}`,
		map[string]string{api.IdempotencyKeyHeader: "q-victim"})
	require.Equal(t, http.StatusAccepted, victim.status, victim.body)
	<-l.starter.Done("q-victim")
	res, err := l.runs.Result(context.Background(), "q-victim")
	require.NoError(t, err)
	require.NotEmpty(t, res.Answer)

	hostile := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		hostilePage.Execute(w, struct{ Target string }{srv.URL})
	}))
	t.Cleanup(hostile.Close)
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(hostile.URL+"/")))
	require.NoError(t, waitFor(ctx, `document.title === "done"`))
	tried, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`window.tried`))
	require.NoError(t, err)
	assert.Equal(t, []string{"no-cors text/plain: opaque 0", "cors json: blocked"}, tried,
		"the plain fetch was sent (its answer unreadable), the JSON one never left the browser")

	// The name rebound to 127.0.0.1 on serve's port is serve's origin to
	// the browser: the hostile page's script, loaded before the rebinding,
	// may read and send there as the page itself.
	u, err := url.Parse(srv.URL)
	require.NoError(t, err)
	reboundURL := "http://" + rebound + ":" + u.Port()
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(reboundURL+"/namespaces/sample/queries/q-victim")))
	shown, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.body.innerText`))
	require.NoError(t, err)
	read, err := chromedp.Run(ctx, chromedp.Evaluate[string](
		`fetch("/namespaces/sample/queries/q-victim").then(async r => r.status + " " + await r.text())`,
		chromedp.EvalAwaitPromise))
	require.NoError(t, err)
	started, err := chromedp.Run(ctx, chromedp.Evaluate[string](
		`fetch("/namespaces/sample/queries", {method: "POST", headers: {"Content-Type": "application/json"},
			body: '{"query":"What are the main themes?","queryId":"q-hostile-rebound"}'}).then(r => String(r.status))`,
		chromedp.EvalAwaitPromise))
	require.NoError(t, err)

	assert.Contains(t, shown, "(DNS rebinding protection)")
	assert.True(t, strings.HasPrefix(read, "403 "), read)
	assert.NotContains(t, read, res.Answer, "the result is not read")
	assert.Contains(t, read, `Host "`+rebound+":"+u.Port()+`" is refused`)
	assert.Equal(t, "403", started)
	for _, id := range []string{"q-hostile-form", "q-hostile-plain", "q-hostile-json", "q-hostile-rebound"} {
		status, _, err := l.starter.Execution(context.Background(), id)
		require.NoError(t, err)
		assert.Empty(t, status, "%s started no search", id)
	}
}
