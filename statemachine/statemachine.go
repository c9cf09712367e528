// Package statemachine holds the search workflow's definition
// (globalsearch.asl.json, Amazon States Language, JSONPath) and the tests
// that tie it to the rest of the deployment: its error names are the Go
// types of shared/workflow, its payloads their JSON fields, its
// substitutions the functions of template.yaml, and every file in events/
// decodes strictly through the handler it is for.
package statemachine

import _ "embed"

// Definition is the ASL as deployed, with ${...} substitutions unresolved.
//
//go:embed globalsearch.asl.json
var Definition []byte
