// Package statemachine holds the search workflow's definition
// (globalsearch.asl.json, Amazon States Language, JSONPath) and the tests
// that tie it to the rest of the deployment: its error names are the Go
// types of shared/workflow, its payloads their JSON fields, its
// substitutions the functions of template.yaml, and every file in events/
// decodes strictly through the handler it is for.
package statemachine

import (
	_ "embed"
	"encoding/json"
)

// Definition is the ASL as deployed, with ${...} substitutions unresolved.
//
//go:embed globalsearch.asl.json
var Definition []byte

// EventsOutsideMap is the most history events the states outside the Map
// can write in one execution: every one of them visited (a conservative
// bound: no run visits them all), each task invoked as often as its Retry
// allows (three events an invoke, two to enter and leave), and the
// execution's start and end. It panics if Definition is not JSON, which a
// test rules out.
func EventsOutsideMap() int {
	n := 2 // ExecutionStarted, ExecutionFailed
	for _, s := range topStates() {
		n += stateEvents(s)
	}
	return n
}

// EventsPerSelectionRound is the most events one more pass through a
// dynamic selection's loop writes beside its rating iterations: the mode
// Choice, the RateCommunities Map and the SelectNext task with every retry
// (docs/contract.md#dynamic-selection).
func EventsPerSelectionRound() int {
	all := topStates()
	n := 0
	for _, name := range []string{"MapMode", "RateCommunities", "SelectNext"} {
		n += stateEvents(all[name])
	}
	return n
}

// EventsPerReduceRound is the most events one more pass through a reduce
// in rounds' loop writes beside its group iterations: the PlanReduceRound
// task with every retry, the RoundHasGroups Choice and the ReduceGroups Map
// (docs/contract.md#reduce-rounds).
func EventsPerReduceRound() int {
	all := topStates()
	n := 0
	for _, name := range []string{"PlanReduceRound", "RoundHasGroups", "ReduceGroups"} {
		n += stateEvents(all[name])
	}
	return n
}

// aslState is what the event counts read of a state.
type aslState struct {
	Type  string
	Retry []struct{ MaxAttempts *int }
}

func topStates() map[string]aslState {
	var def struct{ States map[string]aslState }
	if err := json.Unmarshal(Definition, &def); err != nil {
		panic(err)
	}
	return def.States
}

// stateEvents is the most events one visit of s writes.
func stateEvents(s aslState) int {
	switch s.Type {
	case "Task":
		invokes := 1
		for _, r := range s.Retry {
			if r.MaxAttempts == nil {
				invokes += 3 // the ASL default
			} else {
				invokes += *r.MaxAttempts
			}
		}
		return 2 + 3*invokes
	case "Map":
		return 4 // entered, started, succeeded or failed, exited
	case "Fail":
		return 1 // entered; the execution's end is counted apart
	default:
		return 2 // entered, exited
	}
}
