package globalsearch

import (
	"cmp"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"slices"
	"strconv"
)

// SeedDerivation is where the shuffle seed of a run under seedPolicy
// "namespace" came from (docs/contract.md#seed-policy): the namespace, the
// version the store named for it and a digest of its summaries. The seed
// is a function of these alone, so every question over one namespace
// version packs the same batches, and `run --seed` with the seed packs
// them again.
type SeedDerivation struct {
	Namespace string `json:"namespace"`
	// IndexVersion is the store's name of the version read (a DynamoDB
	// table's never repeats; the embedded store of an index file counts
	// from 1 in each process); empty for a store that names none.
	IndexVersion string `json:"indexVersion,omitempty"`
	// SummariesDigest is a CRC-32C of the namespace's summaries (ids,
	// levels, parents, titles and texts, in id order), which tells two
	// index files of one version number apart.
	SummariesDigest string `json:"summariesDigest"`
}

// seedPolicyOf is p's seed policy, a request stored before the field
// existed read as "question".
func seedPolicyOf(p Params) string { return cmp.Or(p.SeedPolicy, SeedPolicyQuestion) }

// derivesSeed is whether prepare derives p's seed from the namespace: a
// request under seedPolicy "namespace" whose seed is still 0, which under
// that policy stands for "none yet" (ParseRequest turns an explicit 0 into
// policy "question", and a derived seed is never 0), and that shuffles
// greedily (stable batching keeps seed 0, and shuffle false uses none).
// It reads only stored fields, so every step of a run, in one process or
// on AWS, agrees.
func derivesSeed(p Params) bool {
	return seedPolicyOf(p) == SeedPolicyNamespace && p.ShuffleSeed == 0 && p.Shuffle && batchingOf(p) == BatchingGreedy
}

// withNamespaceSeed is plan with the seed of its namespace version fixed,
// when its request derives one (derivesSeed): after the request was
// validated and the summaries read, where the version is known
// (docs/contract.md#seed-policy).
func withNamespaceSeed(plan *Plan, snap Snapshot, summaries []Summary) {
	if !derivesSeed(plan.Params) {
		return
	}
	d := SeedDerivation{Namespace: plan.Params.Namespace, IndexVersion: snapshotVersion(snap), SummariesDigest: summariesDigest(summaries)}
	plan.Params.ShuffleSeed, plan.Params.SeedGenerated = d.seed(), false
	plan.SeedDerivation = &d
}

// seed is the seed d names: the first 63 bits of a SHA-256 of its parts,
// never 0 (a stored 0 under the policy is a seed not yet derived).
func (d SeedDerivation) seed() int64 {
	h := sha256.New()
	for _, part := range []string{"graphrag-global seed v1", d.Namespace, d.IndexVersion, d.SummariesDigest} {
		h.Write([]byte(strconv.Itoa(len(part))))
		h.Write([]byte{0})
		h.Write([]byte(part))
	}
	n := int64(binary.BigEndian.Uint64(h.Sum(nil)) >> 1)
	return max(n, 1)
}

// summariesDigest is a CRC-32C of what the summaries say, in id order,
// so the order a store returns them in does not matter. It only tells two
// indexes of one version number apart (a collision would give two of them
// one seed, which is harmless), so a checksum the CPU computes at memory
// speed serves: 100,000 summaries are read at every prepare.
func summariesDigest(summaries []Summary) string {
	order := make([]int, len(summaries))
	for i := range order {
		order[i] = i
	}
	byID := func(a, b int) int { return cmp.Compare(summaries[a].ID, summaries[b].ID) }
	if !slices.IsSortedFunc(order, byID) {
		slices.SortFunc(order, byID)
	}
	var crc uint32
	var buf []byte
	for _, i := range order {
		s := &summaries[i]
		buf = buf[:0]
		for _, part := range []string{s.ID, strconv.Itoa(s.Level), s.ParentCommunityID, s.Title, s.Summary} {
			buf = strconv.AppendInt(buf, int64(len(part)), 10)
			buf = append(buf, 0)
			buf = append(buf, part...)
		}
		crc = crc32.Update(crc, castagnoli, buf)
	}
	return fmt.Sprintf("crc32c:%08x", crc)
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)
