package main

import (
	"context"
	"fmt"
	"io"
	"strconv"

	"github.com/graphrag-global/graphrag-global/shared/tokens"
)

func tokensCommand(_ context.Context, env *cliEnv, args []string) error {
	if len(args) == 1 && (args[0] == "-h" || args[0] == "--help") {
		fmt.Fprintln(env.stdout, "usage: globalsearch tokens < FILE\n\nprints the token estimate (docs/contract.md#token-estimate) of standard input")
		return errHelp
	}
	if len(args) > 0 {
		return &usageError{"tokens takes no arguments; it reads standard input"}
	}
	data, err := io.ReadAll(env.stdin)
	if err != nil {
		return fmt.Errorf("read standard input: %w", err)
	}
	fmt.Fprintln(env.stdout, strconv.Itoa(tokens.Estimate(string(data))))
	return nil
}
