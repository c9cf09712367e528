package main

import (
	"context"
	"fmt"
	"io"
	"strconv"

	"github.com/graphrag-global/graphrag-global/shared/tokens"
)

func tokensCommand(_ context.Context, env *cliEnv, args []string) error {
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
