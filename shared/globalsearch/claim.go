package globalsearch

import "context"

// ClaimRequest records p as the request of its query id, or finds the one
// stored there (docs/contract.md#query-ids): prepare, the failure record of
// an invalid request and the HTTP API all claim an id through it, so one id
// names one request whichever path starts the run. owner is as in
// Requests.CreateRequest. It returns the stored request, whose seed wins so
// that a retried start replays the same plan, and whether this call created
// it. A different request under the id is KindConflict naming the id, and
// nothing stored changed. An error of reqs comes back as it came, for the
// caller to say what it was doing.
func ClaimRequest(ctx context.Context, reqs Requests, p Params, owner string) (stored Params, created bool, err error) {
	stored, created, err = reqs.CreateRequest(ctx, p, owner)
	if err != nil {
		return Params{}, false, err
	}
	if !created && !stored.SameRequest(p) {
		return Params{}, false, Errorf(KindConflict, "query id %s already names a different request", p.QueryID)
	}
	// The runs table does not keep whether the mapConcurrency was named
	// (docs/contract.md#quota); the request given says so.
	stored.MapConcurrencyDefault = p.MapConcurrencyDefault
	return stored, created, nil
}
