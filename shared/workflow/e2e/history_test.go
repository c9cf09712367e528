package e2e

import (
	"fmt"
	"sort"
	"strings"
	"sync"
	"testing"

	sfntypes "github.com/aws/aws-sdk-go-v2/service/sfn/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/workflow"
	"github.com/graphrag-global/graphrag-global/statemachine"
)

// historyOf runs one execution of n batches whose every map call fails
// (twice, so every iteration is caught), the first invoke of each batch
// throttled by the Lambda service when throttled is set, and returns its
// history's events by type.
func historyOf(t *testing.T, e *env, name string, n int, throttled bool) map[sfntypes.HistoryEventType]int {
	t.Helper()
	// Each batch is invoked twice, plus once more when its first invoke is
	// throttled. Anything else is the emulator, not the workflow: moto's
	// own Lambda client timing out under load (its service retrier invokes
	// again) or its Retry state race. Such a history does not measure the
	// workflow, so it is measured again.
	want := 2
	if throttled {
		want = 3
	}
	for try := 1; ; try++ {
		counts, invokes := runHistory(t, e, fmt.Sprintf("%s-%d", name, try), n, throttled)
		exact := len(invokes) == n
		for _, got := range invokes {
			exact = exact && got == want
		}
		if exact {
			return counts
		}
		if try == 3 {
			t.Fatalf("map invokes by batch %v in each of %d executions, want %d per batch", invokes, try, want)
		}
		t.Logf("map invokes by batch %v, want %d per batch: the emulator retried; measuring again", invokes, want)
	}
}

// runHistory runs one execution for historyOf and returns its events by
// type and the map invocations by batch.
func runHistory(t *testing.T, e *env, name string, n int, throttled bool) (map[sfntypes.HistoryEventType]int, map[int]int) {
	t.Helper()
	queryID := uniqueName("q-" + name)
	namespace := strings.ToLower(uniqueName("ns-" + name))
	e.loadIndex(t, namespace, n)
	rn := newRun()
	rn.model = failModel(modelError(), func(c modelCall) bool { return c.Function == "map" })
	if throttled {
		rn.fault = func(inv invocation) *lambdaReply {
			if inv.Function == "map" && inv.N == 1 {
				return throttle()
			}
			return nil
		}
	}
	e.lambda.register(queryID, rn)
	m := e.newStateMachine(t)
	input := request(queryID, namespace)
	// One iteration at a time: the count per batch does not depend on it,
	// and moto's Retry state race needs two iterations failing together.
	input["mapConcurrency"] = 1
	arn := e.start(t, m, queryID, input)
	out := e.wait(t, m, arn)
	require.Equal(t, sfntypes.ExecutionStatusFailed, out.Status, e.history(m, arn))
	counts := map[sfntypes.HistoryEventType]int{}
	for _, ev := range e.events(t, m, arn) {
		counts[ev.Type]++
	}
	return counts, rn.batchCounts()
}

func total(c map[sfntypes.HistoryEventType]int) int {
	n := 0
	for _, v := range c {
		n += v
	}
	return n
}

// diff renders b - a by event type.
func diff(a, b map[sfntypes.HistoryEventType]int, per int) string {
	var lines []string
	for typ := range b {
		if d := b[typ] - a[typ]; d != 0 {
			lines = append(lines, fmt.Sprintf("%s %g", typ, float64(d)/float64(per)))
		}
	}
	sort.Strings(lines)
	return strings.Join(lines, ", ")
}

// TestHistoryBudget counts the history events a caught map batch costs
// from real executions in which every map call fails twice: two sizes
// give the cost of one batch and of everything else; a run whose every
// first invoke is throttled gives the cost of a Lambda-service retry.
// They must be the figures InlineMaxBatches is computed from
// (statemachine.TestHistoryBudget checks that the worst case fits).
func TestHistoryBudget(t *testing.T) {
	// Its own moto server and regions: it runs beside the other suites.
	t.Parallel()
	e := newEnv(t)
	const small, large = 2, 6
	var mu sync.Mutex
	runs := map[string]map[sfntypes.HistoryEventType]int{}
	t.Run("executions", func(t *testing.T) {
		for _, c := range []struct {
			name      string
			n         int
			throttled bool
		}{{"small", small, false}, {"large", large, false}, {"throttled", small, true}} {
			t.Run(c.name, func(t *testing.T) {
				t.Parallel()
				h := historyOf(t, e, "history-"+c.name, c.n, c.throttled)
				mu.Lock()
				defer mu.Unlock()
				runs[c.name] = h
			})
		}
	})
	s, l, th := runs["small"], runs["large"], runs["throttled"]
	require.Len(t, runs, 3)
	perBatch := float64(total(l)-total(s)) / (large - small)
	perRetry := float64(total(th)-total(s)) / small
	fixed := float64(total(s)) - small*perBatch
	t.Logf("events: %d batches %d, %d batches %d, %d batches throttled once each %d", small, total(s), large, total(l), small, total(th))
	t.Logf("per failed batch %g: %s", perBatch, diff(s, l, large-small))
	t.Logf("per Lambda-service retry %g: %s", perRetry, diff(s, th, small))
	t.Logf("outside the Map %g (bound from the ASL: %d)", fixed, statemachine.EventsOutsideMap())
	assert.Equal(t, float64(workflow.HistoryEventsPerFailedBatch), perBatch, "workflow.HistoryEventsPerFailedBatch")
	assert.Equal(t, float64(workflow.HistoryEventsPerLambdaRetry), perRetry, "workflow.HistoryEventsPerLambdaRetry")
	assert.LessOrEqual(t, fixed, float64(statemachine.EventsOutsideMap()), "statemachine.EventsOutsideMap bounds the rest")
}
