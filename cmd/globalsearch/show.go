package main

import (
	"cmp"
	"context"
	"fmt"
	"strings"

	"github.com/graphrag-global/graphrag-global/shared/cmdutil"
	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/lookup"
)

// showCommand prints the record an id names (docs/contract.md#show), or
// without an id the communities by level; the lookup is shared/lookup's,
// which serve and mcp answer with too.
func showCommand(ctx context.Context, env *cliEnv, args []string) error {
	fs := newFlagSet("show", env)
	var idx indexOptions
	idx.register(fs)
	fs.StringVar(&idx.namespace, "namespace", "", "namespace to read (the index file's, or \"default\" for a GraphRAG folder or a table)")
	kind := fs.String("kind", "", "look the id up as this kind only: community, claim, chunk, entity or relationship")
	jsonOut := fs.Bool("json", false, "print the record as JSON (serve's GET /namespaces/{namespace}/records/{id})")
	id := ""
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		id, args = args[0], args[1:]
	}
	if err := cmdutil.ParseQuiet(fs, args); err != nil {
		return err
	}
	if rest := fs.Args(); len(rest) > 1 || len(rest) == 1 && id != "" {
		return &usageError{Msg: fmt.Sprintf("show takes one id, not %d", len(rest)+min(len(id), 1))}
	} else if len(rest) == 1 {
		id = rest[0]
	}
	k, err := lookup.ParseKind(*kind)
	if err != nil {
		return asUsage(err)
	}
	index, ns, err := idx.open(ctx, env)
	if err != nil {
		return err
	}
	// As run's: the flag, else the index file's (or the folder's), else
	// for a table $GRAPHRAG_NAMESPACE, else the contract's.
	envNS, _ := env.lookupEnv("GRAPHRAG_NAMESPACE")
	ns = cmp.Or(idx.namespace, ns, envNS, globalsearch.SpecDefaults.Namespace)
	if id == "" {
		levels, err := lookup.Reports(ctx, index, ns)
		if err != nil {
			return err
		}
		if *jsonOut {
			return writeJSON(env.stdout, map[string]any{"namespace": ns, "levels": levels})
		}
		fmt.Fprint(env.stdout, terminalText(lookup.ReportsText(ns, levels)))
		return nil
	}
	rec, err := lookup.Find(ctx, index, ns, id, lookup.Options{Kind: k})
	if err != nil {
		return err
	}
	if *jsonOut {
		return writeJSON(env.stdout, rec)
	}
	fmt.Fprint(env.stdout, terminalText(lookup.Text(rec)))
	return nil
}
