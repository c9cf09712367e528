package globalsearch

import (
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"regexp"
)

// The names a request may carry: its namespace and its query id, which is
// also an execution name on AWS (docs/contract.md#query-ids).
var (
	namespacePattern = regexp.MustCompile(`^[a-z0-9._-]{1,64}$`)
	queryIDPattern   = regexp.MustCompile(`^[A-Za-z0-9_-]{1,80}$`)
)

// ValidNamespace reports whether ns is a namespace name (docs/contract.md#index).
func ValidNamespace(ns string) bool { return namespacePattern.MatchString(ns) }

// NamespaceRule is how every message states the namespace rule that
// ValidNamespace checks (docs/contract.md#index), after the name of what
// broke it: "namespace", "--namespace", "the path's namespace". One text
// keeps the request, the API, the CLI and the index file saying the same.
const NamespaceRule = "must be 1-64 characters of a-z 0-9 - _ ."

// ValidQueryID reports whether id meets the queryId rule
// (docs/contract.md#request): an edge that must key a run without a whole
// request checks it here, not with a parse.
func ValidQueryID(id string) bool { return queryIDPattern.MatchString(id) }

// NewQueryID returns a fresh query id that is also a valid execution name.
func NewQueryID() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return "q-" + hex.EncodeToString(b[:])
}

// NewRunID returns a fresh run id: 16 hex digits, safe in a sort key.
func NewRunID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

func randomSeed() int64 {
	var b [8]byte
	_, _ = rand.Read(b[:])
	// Keep seeds below 2^53 so JSON clients that read numbers as doubles
	// can replay them exactly.
	return int64(binary.LittleEndian.Uint64(b[:]) & (1<<53 - 1))
}
