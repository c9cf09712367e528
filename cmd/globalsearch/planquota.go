package main

import (
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

// quotaOptions are plan's flags that state the map model's quota
// (docs/contract.md#quota); each defaults to its GRAPHRAG_* variable.
type quotaOptions struct {
	quota globalsearch.Quota
	set   map[string]bool
}

const (
	flagTokensPerMinute   = "tokens-per-minute"
	flagRequestsPerMinute = "requests-per-minute"
	flagCallSeconds       = "call-seconds"
)

func (o *quotaOptions) register(fs *flag.FlagSet) {
	o.set = map[string]bool{}
	limit := func(name string, to *int) func(string) error {
		return func(s string) error {
			n, err := globalsearch.ParseQuotaLimit(s)
			if err != nil {
				return err
			}
			*to, o.set[name] = n, true
			return nil
		}
	}
	fs.Func(flagTokensPerMinute, "the map model's tokens-per-minute quota, to size the map concurrency and print an ETA (default $"+
		globalsearch.EnvModelTokensPerMinute+"; 0: not known)", limit(flagTokensPerMinute, &o.quota.TokensPerMinute))
	fs.Func(flagRequestsPerMinute, "the map model's requests-per-minute quota (default $"+
		globalsearch.EnvModelRequestsPerMinute+"; 0: not known)", limit(flagRequestsPerMinute, &o.quota.RequestsPerMinute))
	fs.Func(flagCallSeconds, fmt.Sprintf("seconds one map call takes, for the ETA (default $%s, else %g)", globalsearch.EnvMapCallSeconds, globalsearch.DefaultCallSeconds),
		func(s string) error {
			v, err := globalsearch.ParseCallSeconds(s)
			if err != nil {
				return err
			}
			o.quota.CallSeconds, o.set[flagCallSeconds] = v, true
			return nil
		})
}

// resolve fills what no flag gave from the environment, before anything
// is read: a bad variable is refused as a bad flag is.
func (o *quotaOptions) resolve(env *cliEnv) (globalsearch.Quota, error) {
	fromEnv, err := globalsearch.QuotaFromEnv(env.lookupEnv)
	if err != nil {
		return globalsearch.Quota{}, err
	}
	q := o.quota
	if !o.set[flagTokensPerMinute] {
		q.TokensPerMinute = fromEnv.TokensPerMinute
	}
	if !o.set[flagRequestsPerMinute] {
		q.RequestsPerMinute = fromEnv.RequestsPerMinute
	}
	if !o.set[flagCallSeconds] {
		q.CallSeconds = fromEnv.CallSeconds
	}
	return q, nil
}

// printSizing is plan's line of concurrency and time.
func printSizing(w io.Writer, out planOutput, q globalsearch.Quota, weight int) {
	if q == (globalsearch.Quota{}) {
		return
	}
	calls := q.AssumedCallSeconds()
	var limits []string
	if q.TokensPerMinute > 0 {
		limits = append(limits, fmt.Sprintf("%d tokens", q.TokensPerMinute))
	}
	if q.RequestsPerMinute > 0 {
		limits = append(limits, fmt.Sprintf("%d requests", q.RequestsPerMinute))
	}
	at := "at "
	if len(limits) > 0 {
		at += strings.Join(limits, " and ") + " a minute and "
	}
	at += strconv.FormatFloat(calls, 'f', -1, 64) + " s a call"
	if q.TokensPerMinute > 0 && weight > 1 {
		at += fmt.Sprintf(" (output tokens count %dx)", weight)
	}
	fmt.Fprintf(w, "%s: map concurrency %d, about %s with the reduce\n", at, out.MapConcurrency, time.Duration(out.ETASeconds)*time.Second)
}
