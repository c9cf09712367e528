package globalsearch_test

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	gs "github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/graphrag"
	"github.com/graphrag-global/graphrag-global/shared/graphrag/corpus"
	"github.com/graphrag-global/graphrag-global/shared/store/memstore"
)

// contractHash is the first 8 bytes, big-endian, of SHA-256(seed, s), as
// docs/contract.md#stable-batching hashes a string.
func contractHash(seed int64, s string) uint64 {
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], uint64(seed))
	sum := sha256.Sum256(append(b[:], s...))
	return binary.BigEndian.Uint64(sum[:8])
}

// contractLeast is the least-hashed of candidates, of equal hashes the
// smaller string.
func contractLeast(seed int64, candidates []string) string {
	return slices.MinFunc(candidates, func(a, b string) int {
		return cmp.Or(cmp.Compare(contractHash(seed, a), contractHash(seed, b)), strings.Compare(a, b))
	})
}

// contractSentences cuts text as the contract says: lines, each cut after
// ".", "!" or "?" that a space or tab follows, trimmed, the empty left out.
func contractSentences(text string) []string {
	var out []string
	for _, line := range strings.Split(text, "\n") {
		cur := ""
		for i, r := range line {
			cur += string(r)
			if strings.ContainsRune(".!?", r) && i+1 < len(line) && (line[i+1] == ' ' || line[i+1] == '\t') {
				if s := strings.TrimSpace(cur); s != "" {
					out = append(out, s)
				}
				cur = ""
			}
		}
		if s := strings.TrimSpace(cur); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// contractStableOrder is the order of the leaves of r under stable
// batching, computed from docs/contract.md#stable-batching's words alone.
func contractStableOrder(r gs.Records, seed int64) []string {
	parents := map[string]bool{}
	for _, s := range r.Summaries {
		parents[s.ParentCommunityID] = true
	}
	claims := map[string][]string{}
	for _, c := range r.Claims {
		line := c.Subject + ": " + c.Description
		if c.Object != "" {
			line = c.Subject + " -> " + c.Object + ": " + c.Description
		}
		claims[c.CommunityID] = append(claims[c.CommunityID], line)
	}
	type leaf struct{ id, key, text string }
	var leaves []leaf
	for _, s := range r.Summaries {
		if parents[s.ID] {
			continue
		}
		key := "summary\n" + contractLeast(seed, contractSentences(s.Summary))
		if len(claims[s.ID]) > 0 {
			key = "claim\n" + contractLeast(seed, claims[s.ID])
		}
		leaves = append(leaves, leaf{s.ID, key, s.Summary})
	}
	slices.SortFunc(leaves, func(a, b leaf) int {
		return cmp.Or(cmp.Compare(contractHash(seed, a.key), contractHash(seed, b.key)),
			strings.Compare(a.key, b.key), strings.Compare(a.text, b.text), strings.Compare(a.id, b.id))
	})
	out := make([]string, len(leaves))
	for i, l := range leaves {
		out[i] = l.id
	}
	return out
}

// TestStableOrderIsTheContracts: the order stable batching packs the
// leaves in is the one docs/contract.md#stable-batching states, on the
// generated index and the Christmas Carol import.
func TestStableOrderIsTheContracts(t *testing.T) {
	if testing.Short() {
		t.Skip("generates and plans a 2,000-summary index; skipped with -short")
	}
	indexes := map[string]func(t *testing.T) gs.Records{
		"generated-2000": func(t *testing.T) gs.Records { before, _ := reindexed(t); return before },
		"christmas-carol": func(t *testing.T) gs.Records {
			recs, _, err := graphrag.Import(context.Background(), corpus.Dir(t, corpus.ChristmasCarol), graphrag.Options{})
			require.NoError(t, err)
			return recs
		},
	}
	for _, name := range []string{"generated-2000", "christmas-carol"} {
		t.Run(name, func(t *testing.T) {
			r := indexes[name](t)
			s := memstore.New()
			require.NoError(t, s.ReplaceNamespace(context.Background(), "default", r))
			e := &gs.Engine{Index: s, Runs: s}
			for _, seed := range []int64{0, 7} {
				stable := gs.BatchingStable
				req := gs.Request{Query: "What are the main themes?", Batching: &stable, ShuffleSeed: &seed}
				p, err := req.Params(gs.SpecDefaults)
				require.NoError(t, err)
				p.MaxModelCalls = 0
				plan, err := e.Plan(context.Background(), p)
				require.NoError(t, err)
				var got []string
				for _, b := range plan.Batches {
					for _, id := range b.CommunityIDs {
						if len(got) == 0 || got[len(got)-1] != id {
							got = append(got, id)
						}
					}
				}
				assert.Equal(t, contractStableOrder(r, seed), got, "seed %d", seed)
			}
		})
	}
}
