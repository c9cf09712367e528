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

// showCommand prints the record an id names, or without an id the
// communities by level (docs/contract.md#show): shared/lookup's, which
// serve and mcp answer with too.
func showCommand(ctx context.Context, env *cliEnv, args []string) error {
	fs := newFlagSet("show", env)
	var idx indexOptions
	idx.register(fs)
	fs.StringVar(&idx.namespace, "namespace", "", "namespace to read (default: the index file's or folder's; for a table $GRAPHRAG_NAMESPACE, else \"default\")")
	kind := fs.String("kind", "", "look the id up as this kind only: community, claim, chunk, entity or relationship")
	jsonOut := fs.Bool("json", false, "print the record as JSON (serve's GET /namespaces/{namespace}/records/{id})")
	var ids []string
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		ids, args = args[:1], args[1:] // the id first, then the flags
	}
	if err := cmdutil.ParseQuiet(fs, args); err != nil {
		return err
	}
	if ids = append(ids, fs.Args()...); len(ids) > 1 {
		return &usageError{Msg: fmt.Sprintf("show takes one id, not %d", len(ids))}
	}
	k, err := lookup.ParseKind(*kind)
	if err != nil {
		return asUsage(err)
	}
	index, ns, err := idx.open(ctx, env)
	if err != nil {
		return err
	}
	envNS, _ := env.lookupEnv("GRAPHRAG_NAMESPACE")
	v, text, err := lookup.Show(ctx, index, cmp.Or(idx.namespace, ns, envNS, globalsearch.SpecDefaults.Namespace), strings.Join(ids, ""), lookup.Options{Kind: k})
	if err != nil {
		return err
	}
	if *jsonOut {
		return writeJSON(env.stdout, v)
	}
	fmt.Fprint(env.stdout, terminalText(text))
	return nil
}
