package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/graphrag"
	"github.com/graphrag-global/graphrag-global/shared/graphrag/corpus"
)

// docProse is a doc of the repository (a path from its root: README.md,
// docs/cost.md) with its lines joined, so that a figure the text wraps is
// found by one pattern.
func docProse(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", filepath.FromSlash(path)))
	require.NoError(t, err)
	return strings.Join(strings.Fields(string(data)), " ")
}

// readmeProse is docProse of README.md.
func readmeProse(t *testing.T) string {
	t.Helper()
	return docProse(t, "README.md")
}

// readmeNumbers are the numbers pattern's groups capture in a doc's
// prose, commas of thousands removed; the pattern must match exactly once,
// or the figure it pins has moved out of the test's sight.
func readmeNumbers(t *testing.T, prose, pattern string) []int {
	t.Helper()
	matches := regexp.MustCompile(pattern).FindAllStringSubmatch(prose, -1)
	require.Len(t, matches, 1, "doc: %s", pattern)
	var out []int
	for _, g := range matches[0][1:] {
		n, err := strconv.Atoi(strings.ReplaceAll(g, ",", ""))
		require.NoError(t, err, g)
		out = append(out, n)
	}
	return out
}

// carolPlan is `plan --graphrag <Carol> --json` with args.
func carolPlan(t *testing.T, dir string, args ...string) planOutput {
	t.Helper()
	env, out, errOut := testEnv("")
	code := runMain(context.Background(), env, append([]string{"plan", "--graphrag", dir, "--json"}, args...))
	require.Equal(t, 0, code, errOut.String())
	var plan planOutput
	require.NoError(t, json.Unmarshal(out.Bytes(), &plan))
	return plan
}

// TestREADMEFigures computes again, from the Christmas Carol output, every
// figure the README and the docs quote of it: the import's counts and the
// map batches and tokens per --excerpts mode (docs/indexes.md), the line
// --graphrag prints and the levels' selections (README.md), the cited
// answer and its coverage line (docs/results.md) and the default plan's
// model calls against MaxModelCalls (docs/aws.md). A change that moves one
// fails here until the doc says the new figure.
func TestREADMEFigures(t *testing.T) {
	dir := corpus.Dir(t, corpus.ChristmasCarol)
	prose := readmeProse(t)
	indexes := docProse(t, "docs/indexes.md")
	const query = "What are the main themes of the story?"

	t.Run("import counts", func(t *testing.T) {
		_, r, err := graphrag.Import(context.Background(), dir, graphrag.Options{})
		require.NoError(t, err)
		got := readmeNumbers(t, indexes, `index of Microsoft GraphRAG's own test data: (\d+) summaries \((\d+) leaves\), (\d+) of (\d+) claims attached \((\d+) subjects are not entities, (\d+) entities are in no community\)`)
		reasons := map[string]int{}
		for _, u := range r.Unmatched {
			reasons[u.Reason]++
		}
		assert.Equal(t, []int{r.Summaries, r.Leaves, r.ClaimsAttached, r.Covariates,
			reasons[graphrag.ReasonUnknownEntity], reasons[graphrag.ReasonNoCommunity]}, got)
		assert.Equal(t, []int{r.ExcerptChunks}, readmeNumbers(t, indexes, `every attached claim cites an excerpt: (\d+) excerpt chunks`))
		assert.Zero(t, r.NoSourceText, "the covariates without source text are all among the unmatched")
		assert.Equal(t, []int{r.Summaries, r.Leaves, r.ClaimsAttached, r.Covariates, r.Chunks, len(r.Unmatched)},
			readmeNumbers(t, prose, "`--graphrag DIR: (\\d+) summaries \\((\\d+) leaves\\), (\\d+) of (\\d+) claims, (\\d+) chunks; (\\d+) claims not stored"),
			"the line --graphrag prints")
	})
	t.Run("excerpts table", func(t *testing.T) {
		for _, mode := range []string{"source-text", "text-unit", "none"} {
			plan := carolPlan(t, dir, "--excerpts", mode, "--query", query, "--no-shuffle")
			got := readmeNumbers(t, indexes, `\| `+"`"+mode+"`"+`[^|]*\| (\d+) \| ([\d,]+) \|`)
			assert.Equal(t, []int{plan.BatchCount, plan.EstimatedMapInputTokens}, got, "--excerpts %s", mode)
		}
	})
	t.Run("levels", func(t *testing.T) {
		level2 := carolPlan(t, dir, "--level", "2", "--query", query, "--no-shuffle")
		leaf := carolPlan(t, dir, "--query", query, "--no-shuffle")
		assert.Equal(t, []int{level2.SummaryCount}, readmeNumbers(t, prose, "`--level 2` selects (\\d+) summaries"))
		assert.Equal(t, []int{leaf.SummaryCount}, readmeNumbers(t, prose, "`--level leaf` selects all (\\d+) leaves"))
		// docs/contract.md#graphrag-level: GraphRAG's level 2, and every
		// level in the docs that quote them.
		graphRAG2 := carolPlan(t, dir, "--community-level", "2", "--query", query, "--no-shuffle")
		split := graphRAG2.Diagnostics.GraphRAGLevel
		require.NotNil(t, split)
		got := readmeNumbers(t, prose, "`--community-level 2` selects (\\d+) summaries \\((\\d+) at level 2, (\\d+) leaves at level 0 and (\\d+) at level")
		require.Len(t, got, 4)
		assert.Equal(t, []int{graphRAG2.SummaryCount, split.AtLevel, split.LeavesAbove}, []int{got[0], got[1], got[2] + got[3]})
		var each []int
		for n := range 4 {
			each = append(each, carolPlan(t, dir, "--community-level", strconv.Itoa(n), "--query", query, "--no-shuffle").SummaryCount)
		}
		for _, doc := range []string{"docs/indexes.md", "docs/contract.md"} {
			assert.Equal(t, each, readmeNumbers(t, docProse(t, doc), `select (\d+), (\d+), (\d+) and (\d+) summaries`), doc)
		}
	})
	t.Run("cited answer and its coverage line", func(t *testing.T) {
		prose := docProse(t, "docs/results.md")
		const cmd = `run --graphrag ../shared/corpora/christmas-carol --query "What is the central conflict of the story?" --seed 1`
		require.True(t, strings.Contains(prose, "$ go run ./cmd/globalsearch "+cmd), "docs/results.md's example command is not %s", cmd)
		env, out, errOut := testEnv("")
		code := runMain(context.Background(), env, []string{"run", "--graphrag", dir, "--query", "What is the central conflict of the story?", "--seed", "1", "--no-cache"})
		require.Equal(t, 0, code, errOut.String())
		lines := strings.Split(strings.TrimSpace(out.String()), "\n")
		coverage := lines[len(lines)-1]
		require.True(t, strings.HasPrefix(coverage, "coverage: "), coverage)
		coverage = strings.Join(strings.Fields(coverage), " ")
		assert.True(t, strings.Contains(prose, coverage), "docs/results.md's coverage line is not the run's: %s", coverage)
		first, _, _ := strings.Cut(lines[0], " [Data:")
		first = strings.Join(strings.Fields(first), " ")
		assert.True(t, strings.Contains(prose, first), "docs/results.md's answer does not start as the run's: %s", first)
	})
	t.Run("default plan against MaxModelCalls", func(t *testing.T) {
		plan := carolPlan(t, dir, "--query", query, "--no-shuffle")
		got := readmeNumbers(t, docProse(t, "docs/aws.md"), `500 is over (\d+) times the default plan of the Christmas Carol index \(at most (\d+) calls for its (\d+) batches`)
		assert.Equal(t, []int{plan.MaxModelCalls, plan.BatchCount}, got[1:])
		assert.Greater(t, 500, got[0]*plan.MaxModelCalls, "over %d times", got[0])
		assert.LessOrEqual(t, 500, (got[0]+5)*plan.MaxModelCalls, "not far over %d times", got[0])
	})
}

// TestREADMEIsAnEntryPoint holds the README to a few screens
// (docs/architecture.md, STYLE 16: the rest lives in docs/, one file per
// task) and every relative link of the README and the docs to a file and
// an anchor that exist, so that moving a section cannot leave a link behind.
func TestREADMEIsAnEntryPoint(t *testing.T) {
	root := filepath.Join("..", "..")
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	require.NoError(t, err)
	assert.LessOrEqual(t, strings.Count(string(readme), "\n"), 400, "README.md lines")

	docs, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	require.NoError(t, err)
	link := regexp.MustCompile(`\]\(([^)\s]+)\)`)
	anchors := map[string]map[string]bool{}
	for _, doc := range append([]string{filepath.Join(root, "README.md")}, docs...) {
		data, err := os.ReadFile(doc)
		require.NoError(t, err)
		for _, m := range link.FindAllStringSubmatch(string(data), -1) {
			target := m[1]
			if strings.Contains(target, "://") {
				continue
			}
			file, anchor, _ := strings.Cut(target, "#")
			path := doc
			if file != "" {
				path = filepath.Join(filepath.Dir(doc), filepath.FromSlash(file))
			}
			if _, err := os.Stat(path); err != nil {
				t.Errorf("%s links to %s, which does not exist", doc, target)
				continue
			}
			if anchor != "" && strings.HasSuffix(path, ".md") {
				if anchors[path] == nil {
					anchors[path] = docAnchors(t, path)
				}
				assert.Contains(t, anchors[path], anchor, "%s links to %s", doc, target)
			}
		}
	}
}

// docAnchors are the anchors a Markdown file offers: its <a id> names and
// its headings' GitHub slugs (lower case, punctuation but - and _ dropped,
// spaces as -, a repeated slug numbered), headings in code blocks skipped.
func docAnchors(t *testing.T, path string) map[string]bool {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	anchors := map[string]bool{}
	for _, m := range regexp.MustCompile(`<a id="([^"]+)"`).FindAllStringSubmatch(string(data), -1) {
		anchors[m[1]] = true
	}
	punct := regexp.MustCompile(`[^\p{L}\p{N}_\- ]`)
	seen := map[string]int{}
	inCode := false
	for _, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(line, "```") {
			inCode = !inCode
		}
		heading := strings.TrimLeft(line, "#")
		if inCode || heading == line || !strings.HasPrefix(heading, " ") {
			continue
		}
		slug := strings.ReplaceAll(punct.ReplaceAllString(strings.ToLower(strings.TrimSpace(heading)), ""), " ", "-")
		if n := seen[slug]; n > 0 {
			anchors[slug+"-"+strconv.Itoa(n)] = true
		} else {
			anchors[slug] = true
		}
		seen[slug]++
	}
	return anchors
}
