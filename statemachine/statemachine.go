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
	var def struct {
		States map[string]struct {
			Type  string
			Retry []struct{ MaxAttempts *int }
		}
	}
	if err := json.Unmarshal(Definition, &def); err != nil {
		panic(err)
	}
	n := 2 // ExecutionStarted, ExecutionFailed
	for _, s := range def.States {
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
			n += 2 + 3*invokes
		case "Map":
			n += 4 // entered, started, succeeded or failed, exited
		case "Fail":
			n++ // entered; the execution's end is counted above
		default:
			n += 2 // entered, exited
		}
	}
	return n
}
