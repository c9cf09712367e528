package lambdalocal

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/aws/aws-lambda-go/events"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/localrun"
	"github.com/graphrag-global/graphrag-global/shared/workflow"
)

// seeder writes what an event needs into the empty runs store through the
// same handlers and the same local execution stand-in the event then
// meets.
type seeder struct {
	ctx      context.Context
	cfg      Config
	handlers *workflow.Handlers
	starter  *localrun.Starter
}

func (s *seeder) prepare(queryID string) (workflow.PrepareOutput, error) {
	req, _ := json.Marshal(map[string]string{"query": s.cfg.SeedQuery, "queryId": queryID})
	fmt.Fprintf(s.cfg.Progress, "invoke: seeding: prepare %s\n", queryID)
	return s.handlers.Prepare(s.ctx, workflow.PrepareInput{Request: req})
}

func (s *seeder) seedMap(payload []byte) error {
	var in workflow.MapInput
	if err := json.Unmarshal(payload, &in); err != nil {
		return err
	}
	_, err := s.prepare(in.QueryID)
	return err
}

// seedReduce prepares the event's query and maps every batch the event
// does not list as failed.
func (s *seeder) seedReduce(payload []byte) error {
	var in workflow.ReduceInput
	if err := json.Unmarshal(payload, &in); err != nil {
		return err
	}
	if in.Task == workflow.TaskStopped && in.Execution != nil {
		return s.seedStopped(in.Execution)
	}
	out, err := s.prepare(in.QueryID)
	if err != nil {
		return err
	}
	failed := map[int]bool{}
	for _, r := range in.MapResults {
		failed[r.BatchIndex] = r.Failed
	}
	for _, i := range out.BatchIndexes {
		if failed[i] {
			continue
		}
		fmt.Fprintf(s.cfg.Progress, "invoke: seeding: map batch %d\n", i)
		if _, err := s.handlers.Map(s.ctx, workflow.MapInput{QueryID: in.QueryID, BatchIndex: i, Attempt: 1}); err != nil {
			return err
		}
	}
	return nil
}

// seedAPI gives a GET the path's query run to completion, and a DELETE the
// path's query recorded and not yet run.
func (s *seeder) seedAPI(payload []byte) error {
	var req events.APIGatewayV2HTTPRequest
	if err := json.Unmarshal(payload, &req); err != nil {
		return err
	}
	id := req.PathParameters["id"]
	method := req.RequestContext.HTTP.Method
	if (method != "GET" && method != "DELETE") || id == "" {
		return nil
	}
	seed := map[string]string{"query": s.cfg.SeedQuery, "queryId": id}
	// The run is the path's namespace's, or the GET would not find it.
	if ns := req.PathParameters["namespace"]; ns != "" {
		seed["namespace"] = ns
	}
	raw, _ := json.Marshal(seed)
	p, err := globalsearch.ParseRequest(raw, s.cfg.Defaults)
	if err != nil {
		return err
	}
	if method == "DELETE" {
		// A recorded request not yet run: the DELETE has a running query
		// to cancel (docs/contract.md#cancel).
		fmt.Fprintf(s.cfg.Progress, "invoke: seeding: record %s\n", id)
		_, _, err = globalsearch.ClaimRequest(s.ctx, s.cfg.Engine.Runs, p, p.QueryID)
		return err
	}
	// Started as the API starts it (its input the resolved request), so
	// the GET reads the execution's status from the stand-in that ran it.
	input, err := json.Marshal(p)
	if err != nil {
		return err
	}
	fmt.Fprintf(s.cfg.Progress, "invoke: seeding: search %s\n", id)
	if err := s.starter.Start(s.ctx, id, input); err != nil {
		return err
	}
	<-s.starter.Done(id)
	return nil
}

// seedStopped gives a stopped execution's record a run of its own that
// the stop cut short: prepared by that execution, every batch but the last
// answered (docs/contract.md#stopped-executions).
func (s *seeder) seedStopped(x *workflow.ExecutionStatus) error {
	id := x.QueryID()
	req, _ := json.Marshal(map[string]string{"query": s.cfg.SeedQuery, "queryId": id})
	fmt.Fprintf(s.cfg.Progress, "invoke: seeding: prepare %s as execution %s\n", id, x.Name)
	out, err := s.handlers.Prepare(s.ctx, workflow.PrepareInput{Request: req, ExecutionName: x.Name})
	if err != nil {
		return err
	}
	for _, i := range out.BatchIndexes[:max(len(out.BatchIndexes)-1, 0)] {
		fmt.Fprintf(s.cfg.Progress, "invoke: seeding: map batch %d\n", i)
		if _, err := s.handlers.Map(s.ctx, workflow.MapInput{QueryID: id, RunID: out.RunID, BatchIndex: i, Attempt: 1}); err != nil {
			return err
		}
	}
	return nil
}
