package api

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
)

// cancel answers DELETE /namespaces/{ns}/queries/{id} (docs/contract.md#cancel):
// a running query's execution is stopped, then its result is recorded as
// cancelled with one write conditional on the run being the query's
// execution's and still running, so a run that finished first keeps its
// result (409). Nothing is written unless the stop succeeded; an execution
// already stopped (ABORTED) is recorded without another stop, so a DELETE
// whose record failed can be retried. A repeated DELETE of a cancelled
// query answers its result again.
func (h *Handler) cancel(ctx context.Context, ns, id string) events.APIGatewayV2HTTPResponse {
	q, resp, ok := h.lookup(ctx, ns, id)
	if !ok {
		return resp
	}
	if q.hasResult {
		if q.result.Status == globalsearch.StatusCancelled {
			return reply(http.StatusOK, NewResultReply(q.result))
		}
		return finished(id, string(q.result.Status))
	}
	// The execution is named by the query id (post), and it owns the
	// result (docs/contract.md#query-ids).
	status, _, err := h.Starter.Execution(ctx, id)
	if err != nil {
		return h.fail(ctx, id, err)
	}
	switch status {
	case "", "RUNNING":
		if err := h.Starter.Stop(ctx, id, "cancelled through the HTTP API: DELETE "+location(ns, id)); err != nil {
			return h.fail(ctx, id, err)
		}
	case "ABORTED":
		// Stopped already, without a result: a DELETE whose record
		// failed after its stop (this is its retry), or a stop by hand.
	default:
		return finished(id, "the execution ended "+status)
	}
	res := globalsearch.CancelledResult(q.request, h.now()).WithSpend(h.spent(ctx, id))
	err = h.Runs.CancelResult(ctx, res, id)
	switch {
	case errors.Is(err, globalsearch.ErrNotFound):
		// The request is there, but its run is owned by an execution of
		// another name (a schedule or a workflow that named the query
		// id), which this API neither started nor may record over.
		return reply(http.StatusConflict, Error{"conflict", "query " + id + " is run by an execution the HTTP API did not start; stop that execution where it was started"})
	case err != nil:
		// A run that saved its result between the read and the stop is
		// a conflict (KindConflict) like any finished run.
		return h.fail(ctx, id, err)
	}
	h.logger().LogAttrs(ctx, slog.LevelInfo, "query cancelled", slog.String("queryId", id), slog.String("step", "api"), slog.String("status", string(globalsearch.StatusCancelled)))
	// Read back: a cancel that lost to an earlier one answers that one's
	// result.
	stored, err := h.Runs.Result(ctx, id)
	if err != nil {
		return h.fail(ctx, id, err)
	}
	return reply(http.StatusOK, stored)
}

// spender is a Starter that knows what an execution it ran in process
// spent, the calls its stop cut short included (localrun).
type spender interface {
	Spent(name string) (globalsearch.Diagnostics, bool)
}

// spent is what the stopped run of query id paid for
// (docs/contract.md#cancel): the in-process execution's own count, else
// what the runs store holds of the run (a deployment: its plan, map answers
// and reduce calls). A store that cannot say is logged, and the cancel is
// recorded without the spend rather than not at all.
func (h *Handler) spent(ctx context.Context, id string) globalsearch.Diagnostics {
	if s, ok := h.Starter.(spender); ok {
		if d, ok := s.Spent(id); ok {
			return d
		}
	}
	src, ok := h.Runs.(globalsearch.SpendSource)
	if !ok {
		return globalsearch.Diagnostics{}
	}
	d, err := globalsearch.StoredSpend(ctx, src, h.Prices, id)
	if err != nil {
		h.logger().LogAttrs(ctx, slog.LevelError, "spend of a cancelled query unread", slog.String("queryId", id), slog.String("error", err.Error()))
	}
	return d
}

// finished refuses to cancel a query that already ended.
func finished(id, how string) events.APIGatewayV2HTTPResponse {
	return reply(http.StatusConflict, Error{"conflict", "query " + id + " already ended (" + how + "); only a running query can be cancelled"})
}

func (h *Handler) now() time.Time {
	if h.Now != nil {
		return h.Now()
	}
	return time.Now()
}
