package main

import "context"

func runCommand(ctx context.Context, env *cliEnv, args []string) error    { return nil }
func planCommand(ctx context.Context, env *cliEnv, args []string) error   { return nil }
func tokensCommand(ctx context.Context, env *cliEnv, args []string) error { return nil }
