package testenv

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
)

// The most items DynamoDB takes in one BatchWriteItem and one
// BatchGetItem. A batch past them is served whole by one server, so that
// minidyn refuses it as DynamoDB does rather than each part passing.
const (
	mostBatchWrites = 25
	mostBatchGets   = 100
)

// group is the part of a request that one partition serves: its table,
// its partition and the positions, in the request, of its entries.
type group struct {
	table, pk string
	at        []int
}

// groups collects entries by table and partition in the order they first
// appear, so a split request is served in the order it was written.
type groups struct {
	list  []*group
	index map[[2]string]*group
}

func (g *groups) add(table, pk string, at int) {
	if g.index == nil {
		g.index = map[[2]string]*group{}
	}
	k := [2]string{table, pk}
	if g.index[k] == nil {
		g.index[k] = &group{table: table, pk: pk}
		g.list = append(g.list, g.index[k])
	}
	g.index[k].at = append(g.index[k].at, at)
}

// batchWrite splits a BatchWriteItem by partition and merges the answers:
// UnprocessedItems and ItemCollectionMetrics by table, ConsumedCapacity
// summed by table. The first part refused ends the call with its error,
// as minidyn's own loop does; the parts served before it stay written.
func (r *router) batchWrite(target string, body []byte) answer {
	var in map[string]json.RawMessage
	var items map[string][]map[string]map[string]map[string]json.RawMessage
	if json.Unmarshal(body, &in) != nil || json.Unmarshal(in["RequestItems"], &items) != nil {
		return validation("the BatchWriteItem request does not decode")
	}
	var g groups
	n := 0
	for _, table := range sortedKeys(items) {
		for i, req := range items[table] {
			it := req["PutRequest"]["Item"]
			if it == nil {
				it = req["DeleteRequest"]["Key"]
			}
			g.add(table, r.partitionOf(table, it), i)
			n++
		}
	}
	if len(g.list) <= 1 || n > mostBatchWrites {
		return r.whole(g, target, body, true)
	}
	merged := newMerge()
	for _, part := range g.list {
		reqs := make([]map[string]map[string]map[string]json.RawMessage, 0, len(part.at))
		for _, i := range part.at {
			reqs = append(reqs, items[part.table][i])
		}
		in["RequestItems"], _ = json.Marshal(map[string]any{part.table: reqs})
		sub, _ := json.Marshal(in)
		a := forward(r.partition(part.table, part.pk, true), target, sub)
		if a.status != http.StatusOK {
			return a
		}
		if err := merged.add(a.body, "UnprocessedItems", "ItemCollectionMetrics"); err != nil {
			return validation(err.Error())
		}
	}
	return merged.answer()
}

// whole serves an unsplit request on its one partition's server, or on
// the first part's when it is refused whole (too many items, or none:
// the catalog).
func (r *router) whole(g groups, target string, body []byte, write bool) answer {
	if len(g.list) == 0 {
		return forward(r.catalog, target, body)
	}
	return forward(r.partition(g.list[0].table, g.list[0].pk, write), target, body)
}

// batchGet splits a BatchGetItem by partition, each part with its table's
// projection and consistency, and merges Responses and UnprocessedKeys by
// table and ConsumedCapacity summed by table.
func (r *router) batchGet(target string, body []byte) answer {
	var in map[string]json.RawMessage
	var tables map[string]map[string]json.RawMessage
	if json.Unmarshal(body, &in) != nil || json.Unmarshal(in["RequestItems"], &tables) != nil {
		return validation("the BatchGetItem request does not decode")
	}
	keys := map[string][]map[string]json.RawMessage{}
	var g groups
	n := 0
	for _, table := range sortedKeys(tables) {
		var ks []map[string]json.RawMessage
		if json.Unmarshal(tables[table]["Keys"], &ks) != nil {
			return validation("the keys of table " + table + " do not decode")
		}
		keys[table] = ks
		for i, k := range ks {
			g.add(table, r.partitionOf(table, k), i)
			n++
		}
	}
	if len(g.list) <= 1 || n > mostBatchGets {
		return r.whole(g, target, body, false)
	}
	merged := newMerge()
	for _, part := range g.list {
		ks := make([]map[string]json.RawMessage, 0, len(part.at))
		for _, i := range part.at {
			ks = append(ks, keys[part.table][i])
		}
		spec := map[string]json.RawMessage{}
		for k, v := range tables[part.table] {
			spec[k] = v
		}
		spec["Keys"], _ = json.Marshal(ks)
		in["RequestItems"], _ = json.Marshal(map[string]any{part.table: spec})
		sub, _ := json.Marshal(in)
		a := forward(r.partition(part.table, part.pk, false), target, sub)
		if a.status != http.StatusOK {
			return a
		}
		if err := merged.add(a.body, "Responses", "UnprocessedKeys"); err != nil {
			return validation(err.Error())
		}
	}
	return merged.answer()
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// merge gathers the answers of a split call: fields keyed by table
// (Responses, UnprocessedItems, UnprocessedKeys, ItemCollectionMetrics)
// joined per table, ConsumedCapacity summed per table.
type merge struct {
	byTable  map[string]map[string]any
	capacity map[string]map[string]any
	order    []string // the tables of capacity, in the order they came
}

func newMerge() *merge {
	return &merge{byTable: map[string]map[string]any{}, capacity: map[string]map[string]any{}}
}

// add merges one part's answer body; fields are those keyed by table.
func (m *merge) add(body []byte, fields ...string) error {
	var out map[string]json.RawMessage
	if err := json.Unmarshal(body, &out); err != nil {
		return fmt.Errorf("a part's answer does not decode: %w", err)
	}
	for _, f := range fields {
		var per map[string]any
		if raw := out[f]; raw != nil && json.Unmarshal(raw, &per) != nil {
			return fmt.Errorf("a part's %s does not decode", f)
		}
		if m.byTable[f] == nil {
			m.byTable[f] = map[string]any{}
		}
		for table, v := range per {
			m.byTable[f][table] = join(m.byTable[f][table], v)
		}
	}
	var caps []map[string]any
	if raw := out["ConsumedCapacity"]; raw != nil && json.Unmarshal(raw, &caps) != nil {
		return fmt.Errorf("a part's ConsumedCapacity does not decode")
	}
	for _, c := range caps {
		name, _ := c["TableName"].(string)
		if m.capacity[name] == nil {
			m.capacity[name] = map[string]any{}
			m.order = append(m.order, name)
		}
		sumNumbers(m.capacity[name], c)
	}
	return nil
}

// join appends a part's entries for one table to those before it: a list
// (items, write requests, metrics) to a list, and the Keys of an
// UnprocessedKeys entry to its Keys.
func join(have, v any) any {
	switch v := v.(type) {
	case []any:
		prev, _ := have.([]any)
		return append(append([]any{}, prev...), v...)
	case map[string]any:
		prev, ok := have.(map[string]any)
		if !ok {
			return v
		}
		pk, _ := prev["Keys"].([]any)
		vk, _ := v["Keys"].([]any)
		prev["Keys"] = append(pk, vk...)
		return prev
	}
	return v
}

// sumNumbers adds the numbers of c to sum, field by field and within the
// per-index maps (Table, GlobalSecondaryIndexes), and keeps the rest.
func sumNumbers(sum, c map[string]any) {
	for k, v := range c {
		switch v := v.(type) {
		case float64:
			prev, _ := sum[k].(float64)
			sum[k] = prev + v
		case map[string]any:
			prev, ok := sum[k].(map[string]any)
			if !ok {
				prev = map[string]any{}
				sum[k] = prev
			}
			sumNumbers(prev, v)
		default:
			sum[k] = v
		}
	}
}

// answer is the merged answer, as one server would have sent it: every
// table field present (empty when no part had one), ConsumedCapacity only
// when a part sent it.
func (m *merge) answer() answer {
	out := map[string]any{}
	for f, per := range m.byTable {
		out[f] = per
	}
	if len(m.order) > 0 {
		caps := make([]any, 0, len(m.order))
		for _, name := range m.order {
			caps = append(caps, m.capacity[name])
		}
		out["ConsumedCapacity"] = caps
	}
	raw, err := json.Marshal(out)
	if err != nil {
		return validation(err.Error())
	}
	return answer{status: http.StatusOK, body: raw}
}

// errorType is the __type of an error answer, without its namespace.
func errorType(body []byte) string {
	var e struct {
		Type string `json:"__type"`
	}
	_ = json.Unmarshal(body, &e)
	return e.Type[strings.LastIndexByte(e.Type, '#')+1:]
}
