package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

func runCommand(ctx context.Context, env *cliEnv, args []string) error {
	f, err := parseSearchFlags("run", env, args)
	if err != nil {
		return err
	}
	e, p, err := f.engine(ctx, env, true)
	if err != nil {
		return err
	}
	if env.stderrIsTTY && !f.verbose {
		var mu sync.Mutex
		e.Progress = func(done, total int) {
			mu.Lock()
			defer mu.Unlock()
			fmt.Fprintf(env.stderr, "\rmap batches %d/%d", done, total)
			if done == total {
				fmt.Fprintln(env.stderr)
			}
		}
	}
	res, err := e.Search(ctx, p)
	if ctx.Err() != nil && res.QueryID != "" && !f.jsonOut {
		// Ctrl-C: the calls made so far are paid for (docs/contract.md#cancel).
		fmt.Fprintln(env.stderr, "interrupted; spent so far:", terminalText(statusLine(res, p)))
	}
	if f.jsonOut && res.QueryID != "" {
		if werr := writeJSON(env.stdout, res); werr != nil {
			return werr
		}
	} else if err == nil {
		fmt.Fprintln(env.stdout, terminalText(res.Answer))
		fmt.Fprintln(env.stdout)
		fmt.Fprintln(env.stdout, terminalText(statusLine(res, p)))
		fmt.Fprintln(env.stdout, res.Diagnostics.Coverage.LineWithReduceHint())
		if ch := res.Diagnostics.Changes; ch != nil {
			fmt.Fprintln(env.stdout, terminalText(ch.Line(true)))
		}
		if p.Selection == globalsearch.SelectionDynamic {
			fmt.Fprintln(env.stdout, res.Diagnostics.Selection.Line())
		}
		if res.Status == globalsearch.StatusPartial {
			printMapErrors(env.stderr, res.MapErrors)
		}
	}
	if err == nil {
		d := res.Diagnostics
		err = checkSomethingToSearch(res.Namespace, res.CommunityLevel, d.EmptyNamespace, d.AvailableNamespaces, d.AvailableLevels)
	}
	return err
}

// printMapErrors says why the batches of a partial run failed, one line
// per distinct message (the JSON result has one entry per batch).
func printMapErrors(w io.Writer, failures []globalsearch.BatchFailure) {
	for _, g := range globalsearch.GroupFailures(failures) {
		fmt.Fprintf(w, "map %s\n", terminalText(g.String()))
	}
}

// emptyNamespaceNote and levelList are the domain's, which mcp says alike.
func emptyNamespaceNote(namespace string, available []string) string {
	return globalsearch.EmptyNamespaceNote(namespace, available)
}

func levelList(levels []int) string { return globalsearch.LevelList(levels) }

func statusLine(res globalsearch.Result, p globalsearch.Params) string {
	d := res.Diagnostics
	parts := []string{
		fmt.Sprintf("status %s", res.Status),
		count(d.SummaryCount, "summary", "summaries"),
		count(d.BatchCount, "batch", "batches"),
	}
	if d.AutoLevel != nil {
		// docs/contract.md#auto-level: the level "auto" chose.
		parts = append(parts[:1], append([]string{"level auto: " + d.AutoLevel.LevelUsed.String()}, parts[1:]...)...)
	}
	if res.FailedMapBatches > 0 {
		parts = append(parts, fmt.Sprintf("%d failed", res.FailedMapBatches))
	}
	parts = append(parts,
		count(d.ModelCalls, "model call", "model calls"),
	)
	if d.Reduce.Rounds > 1 {
		parts = append(parts, count(d.Reduce.Rounds, "reduce round", "reduce rounds"))
	}
	if d.Map.CacheHits > 0 {
		parts = append(parts, count(d.Map.CacheHits, "map answer", "map answers")+" from cache")
	}
	parts = append(parts,
		fmt.Sprintf("tokens in %d out %d", d.InputTokens, d.OutputTokens),
		seedText(d.ShuffleSeed, p),
		fmt.Sprintf("%s in %s", res.QueryID, d.FinishedAt.Sub(d.StartedAt).Round(1e6)))
	if len(d.AvailableLevels) > 0 {
		parts = append(parts, "levels that exist: "+levelList(d.AvailableLevels))
	}
	if d.EmptyNamespace {
		parts = append(parts, emptyNamespaceNote(res.Namespace, d.AvailableNamespaces))
	}
	if d.Cost != nil {
		parts = append(parts, fmt.Sprintf("cost ~$%.4f (map $%.4f, reduce $%.4f)", d.Cost.Total(), d.Cost.Map, d.Cost.Reduce))
	}
	return "[" + strings.Join(parts, ", ") + "]"
}
