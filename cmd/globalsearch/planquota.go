package main

import (
	"flag"
	"fmt"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/localengine"
)

// quotaOptions are plan's flags that state the map model's quota
// (docs/contract.md#quota); each defaults to its GRAPHRAG_* variable.
// given holds each flag given by the variable it stands for.
type quotaOptions struct {
	given map[string]string
}

func (o *quotaOptions) register(fs *flag.FlagSet) {
	o.given = map[string]string{}
	// Each flag is checked as it is parsed, so a bad one is named as a
	// flag; resolve reads it again as its variable.
	given := func(name string, parse func(string) error) func(string) error {
		return func(s string) error {
			if err := parse(s); err != nil {
				return err
			}
			o.given[name] = s
			return nil
		}
	}
	limit := func(s string) error { _, err := globalsearch.ParseQuotaLimit(s); return err }
	fs.Func("tokens-per-minute", "the map model's tokens-per-minute quota, to size the map concurrency and print an ETA (default $"+
		globalsearch.EnvModelTokensPerMinute+"; 0: not known)", given(globalsearch.EnvModelTokensPerMinute, limit))
	fs.Func("requests-per-minute", "the map model's requests-per-minute quota (default $"+
		globalsearch.EnvModelRequestsPerMinute+"; 0: not known)", given(globalsearch.EnvModelRequestsPerMinute, limit))
	fs.Func("call-seconds", fmt.Sprintf("seconds one map call takes, for the ETA (default $%s, else %g)", globalsearch.EnvMapCallSeconds, globalsearch.DefaultCallSeconds),
		given(globalsearch.EnvMapCallSeconds, func(s string) error { _, err := globalsearch.ParseCallSeconds(s); return err }))
}

// resolve is globalsearch.QuotaFromEnv over the flags and the
// environment, before anything is read: a bad variable is refused as a
// bad flag is.
func (o *quotaOptions) resolve(env *cliEnv) (globalsearch.Quota, error) {
	return globalsearch.QuotaFromEnv(localengine.Lookup(o.given, env.lookupEnv))
}
