// Package globalsearch is the domain of GraphRAG global search: the request
// and its validation (docs/contract.md#request), summary selection and map text (docs/contract.md#prepare), batching
// (docs/contract.md#batching, through package batch), the map and reduce steps (docs/contract.md#map, docs/contract.md#reduce), the result
// (docs/contract.md#result) and the small interfaces the domain consumes (Index, Model, Runs).
//
// It imports no AWS package. The in-process search (Engine.Search) and the
// Lambda handlers call the same Engine steps, so each rule has one
// implementation.
package globalsearch
