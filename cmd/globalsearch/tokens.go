package main

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/graphrag-global/graphrag-global/shared/cmdutil"
	"github.com/graphrag-global/graphrag-global/shared/tokens"
)

func tokensCommand(_ context.Context, env *cliEnv, args []string) error {
	if len(args) == 1 && (args[0] == "-h" || args[0] == "--help") {
		fmt.Fprintln(env.stdout, "usage: globalsearch tokens [--tokenizer T [--model M]] < FILE\n\nprints the token count (docs/contract.md#token-estimate) of standard input: the estimate, or the tokenizer T's count ("+
			strings.Join(tokens.Names, ", ")+"; calibrated takes the rates of --model's family)")
		return cmdutil.ErrHelp
	}
	fs := newFlagSet("tokens", env)
	name := fs.String("tokenizer", tokens.NameEstimate, "how to count: "+strings.Join(tokens.Names, ", "))
	model := fs.String("model", "", "the model whose family's rates --tokenizer calibrated uses")
	if _, err := cmdutil.Parse(fs, args); err != nil {
		if strings.HasPrefix(err.Error(), "unexpected argument") {
			return &usageError{Msg: "tokens takes no arguments; it reads standard input"}
		}
		return err
	}
	counter, err := tokens.For(*name, *model)
	if err != nil {
		return &usageError{Msg: "--tokenizer: " + err.Error()}
	}
	data, err := io.ReadAll(env.stdin)
	if err != nil {
		return fmt.Errorf("read standard input: %w", err)
	}
	fmt.Fprintln(env.stdout, strconv.Itoa(counter.Tokens(counter.Of(string(data)))))
	return nil
}
