// Package globalsearch is the domain of GraphRAG global search: the request
// and its validation (SPEC §2), summary selection and map text (§4), batching
// (§4.3, through package batch), the map and reduce steps (§5, §6), the result
// (§7) and the small interfaces the domain consumes (Index, Model, Runs).
//
// It imports no AWS package. The in-process search (Engine.Search) and the
// Lambda handlers call the same Engine steps, so each rule has one
// implementation.
package globalsearch
