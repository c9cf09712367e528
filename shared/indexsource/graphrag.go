package indexsource

import (
	"context"
	"fmt"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/graphrag"
	"github.com/graphrag-global/graphrag-global/shared/store/memstore"
)

// GraphRAGOptions are a GraphRAG output folder to search in memory, with
// import's own options (graphrag.ParseOptions), which a search shares.
type GraphRAGOptions struct {
	Dir, Content, Excerpts string
	// SearchOnly reads only what a search uses (graphrag.Options.SearchOnly):
	// for run and plan, which never show entities, relationships or
	// document titles, so that the folder loads faster (docs/indexes.md).
	SearchOnly bool
}

var plural = globalsearch.Plural

// open imports the folder in memory under namespace, by import's rules, as
// an index that holds that namespace alone (like an index file), and tells
// note what it read (ReadNote) and each warning.
func (o *GraphRAGOptions) open(ctx context.Context, namespace string, note func(string)) (*FileIndex, string, error) {
	if !globalsearch.ValidNamespace(namespace) {
		return nil, "", globalsearch.Errorf(globalsearch.KindInvalidInput, "--namespace %s", globalsearch.NamespaceRule)
	}
	opts, err := graphrag.ParseOptions(o.Content, o.Excerpts)
	if err != nil {
		return nil, "", err
	}
	opts.SearchOnly = o.SearchOnly
	dir, err := graphrag.OutputDir(o.Dir)
	if err != nil {
		return nil, "", err
	}
	records, report, err := graphrag.Import(ctx, dir, opts)
	if err != nil {
		return nil, "", fmt.Errorf("--graphrag %s: %w", dir, err)
	}
	if note != nil {
		note(ReadNote(dir, report))
		for _, w := range report.Warnings {
			note(fmt.Sprintf("--graphrag %s: warning: %s", dir, w))
		}
	}
	if len(records.Summaries) == 0 {
		return nil, "", globalsearch.Errorf(globalsearch.KindInvalidInput, "--graphrag %s: no community reports to search: %s", dir, globalsearch.NoSummariesMessage)
	}
	s := memstore.New()
	if err := s.ReplaceNamespace(ctx, namespace, records); err != nil {
		return nil, "", err
	}
	return &FileIndex{Store: s, what: "the GraphRAG output folder " + dir + " (read in memory)", namespace: namespace}, namespace, nil
}

// ReadNote is the one line a search in place reports of what it read: the
// counts import prints, and where to see what was left out.
func ReadNote(dir string, r graphrag.Report) string {
	note := fmt.Sprintf("--graphrag %s: %s (%d leaves), %d of %s, %s",
		dir, plural(r.Summaries, "summary", "summaries"), r.Leaves, r.ClaimsAttached, plural(r.Covariates, "claim", "claims"), plural(r.Chunks, "chunk", "chunks"))
	if len(r.Unmatched) > 0 {
		note += fmt.Sprintf("; %s not stored (`globalsearch import graphrag --dir %s --out FILE` lists why)", plural(len(r.Unmatched), "claim", "claims"), dir)
	}
	return note
}
