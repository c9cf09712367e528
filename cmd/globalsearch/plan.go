package main

import (
	"context"
	"fmt"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/localengine"
)

// planOutput is what `plan --json` prints: the domain's report, nothing
// added (docs/contract.md#plan-report).
type planOutput = globalsearch.PlanReport

func planCommand(ctx context.Context, env *cliEnv, args []string) error {
	var quota quotaOptions
	f, err := parseSearchFlags("plan", env, args, quota.register)
	if err != nil {
		return err
	}
	q, err := quota.resolve(env)
	if err != nil {
		return err
	}
	// plan calls no model, but a bad --model or price fails here as it
	// would in run: the engine resolves the models' flags and prices.
	e, p, err := f.engine(ctx, env, false)
	if err != nil {
		return err
	}
	e.Quota = q
	plan, err := e.Plan(ctx, p)
	if err != nil {
		return err
	}
	out := e.Report(plan)
	if f.jsonOut {
		if err := out.WriteJSON(env.stdout); err != nil {
			return err
		}
	} else {
		localengine.WritePlan(env.stdout, out, p)
		if line := out.SizingLine(q, globalsearch.OutputWeight(e.ModelID)); line != "" {
			fmt.Fprintln(env.stdout, line)
		}
	}
	return checkSomethingToSearch(p.Namespace, p.CommunityLevel, out.EmptyNamespace, out.AvailableNamespaces, out.AvailableLevels)
}
