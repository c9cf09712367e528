package main

import (
	"context"
	"flag"
	"fmt"
	"io"

	"github.com/graphrag-global/graphrag-global/shared/cmdutil"
	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/indexsource"
	"github.com/graphrag-global/graphrag-global/shared/llm/provider"
	"github.com/graphrag-global/graphrag-global/shared/recorded"
)

const calibrateUsage = `usage: globalsearch calibrate [flags] [RESULT.json ...]
       globalsearch calibrate --count-tokens --model bedrock:ID [plan flags]

fits the ASCII and non-ASCII characters-per-token rates of a model from the
map calls of recorded results (docs/contract.md#calibrate): files as
run --json writes them ("-" reads standard input; a file may hold several),
and/or results read from a DynamoDB runs table by query id. With
--count-tokens first, it plans a search instead (plan's flags) and counts
each map prompt with Bedrock's CountTokens: no inference, no charge.

flags:
`

const quantileHelp = "share of map calls the printed headroom covers, in (0, 1]"

func calibrateCommand(ctx context.Context, env *cliEnv, args []string) error {
	if len(args) > 0 && (args[0] == "--count-tokens" || args[0] == "-count-tokens") {
		return calibrateCountTokens(ctx, env, args[1:])
	}
	fs := newFlagSet("calibrate", env)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), calibrateUsage)
		fs.PrintDefaults()
	}
	var (
		table    = fs.String("table", "", "DynamoDB runs table to read results from, with --query-id (endpoint from AWS_ENDPOINT_URL_DYNAMODB when set)")
		ids      cmdutil.List
		model    = fs.String("model", "", "fit only the results of this model id (diagnostics.usage.modelId); needed when the results are of several")
		quantile = fs.Float64("quantile", 0.99, quantileHelp)
		jsonOut  = fs.Bool("json", false, "print the calibration as JSON")
		counted  = fs.Bool("count-tokens", false, "first argument only: plan a search (plan's flags) and count its map prompts with Bedrock's CountTokens")
	)
	fs.Var(&ids, "query-id", "query id of a result in --table (repeat, or separate with commas)")
	if err := cmdutil.ParseQuiet(fs, args); err != nil {
		return err
	}
	files := fs.Args()
	switch {
	case *counted:
		return &usageError{Msg: "--count-tokens goes first: it takes plan's flags (globalsearch calibrate --count-tokens --model bedrock:ID --index FILE --query Q)"}
	case len(files) == 0 && *table == "":
		return &usageError{Msg: "calibrate needs result files or --table with --query-id (see globalsearch calibrate -h)"}
	case *table != "" && len(ids) == 0:
		return &usageError{Msg: "--table needs --query-id: the query ids of the results to read"}
	case *table == "" && len(ids) > 0:
		return &usageError{Msg: "--query-id needs --table: the runs table that holds the results"}
	}
	if err := checkQuantile(*quantile); err != nil {
		return err
	}
	// Files first: a bad file is refused before any AWS call.
	results, err := recorded.ReadFiles(files, env.stdin)
	if err != nil {
		return err
	}
	if *table != "" {
		client, err := dynamoDBClient(ctx)
		if err != nil {
			return err
		}
		rs, err := indexsource.RunsResults(ctx, client, *table, ids)
		if err != nil {
			return err
		}
		results = append(results, rs...)
	}
	out, err := recorded.FitResults(results, *model, *quantile)
	if err != nil {
		return err
	}
	return writeCalibration(env.stdout, out, *jsonOut)
}

// checkQuantile is globalsearch.CheckQuantile before anything is read,
// its message naming the flag.
func checkQuantile(q float64) error {
	if err := globalsearch.CheckQuantile(q); err != nil {
		return &usageError{Msg: "--" + err.Error()}
	}
	return nil
}

// calibrateCountTokens is calibrate --count-tokens: the plan's map prompts,
// counted by the model's own tokenizer, are the calls fitted.
func calibrateCountTokens(ctx context.Context, env *cliEnv, args []string) error {
	var quantile float64
	f, err := parseSearchFlags("calibrate", env, args, func(fs *flag.FlagSet) {
		fs.Float64Var(&quantile, "quantile", 0.99, quantileHelp)
	})
	if err != nil {
		return err
	}
	if err := checkQuantile(quantile); err != nil {
		return err
	}
	spec, err := parseModelSpec(f.model.spec)
	if err != nil {
		return err
	}
	if spec.Provider != provider.Bedrock {
		return &usageError{Msg: "--count-tokens counts with Bedrock's CountTokens: give --model bedrock:<model-id>"}
	}
	// The request and the index first: a bad one costs no AWS call.
	e, p, err := f.engine(ctx, env, false)
	if err != nil {
		return err
	}
	if err := f.model.resolve(env); err != nil {
		return err
	}
	m, err := f.model.build(ctx, env, spec)
	if err != nil {
		return err
	}
	out, err := recorded.CountedFit(ctx, e, p, m, f.model.spec, quantile)
	if err != nil {
		return err
	}
	return writeCalibration(env.stdout, out, f.jsonOut)
}

func writeCalibration(w io.Writer, out recorded.Fit, jsonOut bool) error {
	if jsonOut {
		return writeJSON(w, out)
	}
	out.WriteText(w)
	return nil
}
