package main

import (
	"flag"

	"github.com/graphrag-global/graphrag-global/shared/graphrag"
)

// graphragOptions are the flags of a search that reads a GraphRAG output
// folder in memory (--graphrag), with import's own options.
type graphragOptions struct {
	dir, content, excerpts string
}

func (o *graphragOptions) register(fs *flag.FlagSet) {
	fs.StringVar(&o.dir, "graphrag", "", "Microsoft GraphRAG output folder (parquet), or a project root whose output/ holds it, to search without an import step (namespace \"default\" unless --namespace)")
	fs.StringVar(&o.content, "content", "", `with --graphrag: report text to search, "summary" (default) or "full_content", as import's --content`)
	fs.StringVar(&o.excerpts, "excerpts", "", `with --graphrag: what claims cite, "source-text" (default), "text-unit" or "none", as import's --excerpts`)
}

// check refuses import options without --graphrag, and bad values, before
// anything is read.
func (o *graphragOptions) check() error {
	if o.dir == "" {
		if o.content != "" || o.excerpts != "" {
			return &usageError{Msg: "--content and --excerpts go with --graphrag DIR"}
		}
		return nil
	}
	_, err := importOptions(o.content, o.excerpts)
	return err
}

// importOptions is graphrag.ParseOptions, a bad value a usageError.
func importOptions(content, excerpts string) (graphrag.Options, error) {
	opts, err := graphrag.ParseOptions(content, excerpts)
	return opts, asUsage(err)
}
