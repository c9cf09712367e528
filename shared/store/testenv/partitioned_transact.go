package testenv

import (
	"encoding/json"
	"net/http"
	"strings"
)

// transact serves a TransactWriteItems. A transaction within one partition
// (every one the store writes: a query's request and result, its plan,
// request and running result, all keyed by the query id) goes whole to
// that partition's server, which keeps it atomic. A transaction over
// several partitions is served part by part, one sub-transaction per
// partition in the order the items come, and atomicity across partitions
// is not kept: the first part refused ends the call, its cancellation
// reasons placed at the items' positions in the whole transaction (the
// others None), and the parts served before it stay written.
func (r *router) transact(target string, body []byte) answer {
	var in map[string]json.RawMessage
	var items []map[string]struct {
		TableName string
		Item, Key map[string]json.RawMessage
	}
	var raw []json.RawMessage
	if json.Unmarshal(body, &in) != nil || json.Unmarshal(in["TransactItems"], &items) != nil || json.Unmarshal(in["TransactItems"], &raw) != nil {
		return validation("the TransactWriteItems request does not decode")
	}
	var g groups
	for i, ti := range items {
		for _, o := range ti {
			it := o.Key
			if o.Item != nil {
				it = o.Item
			}
			g.add(o.TableName, r.partitionOf(o.TableName, it), i)
		}
	}
	if len(g.list) <= 1 {
		return r.whole(g, target, body, true)
	}
	for _, part := range g.list {
		sub := make([]json.RawMessage, 0, len(part.at))
		for _, i := range part.at {
			sub = append(sub, raw[i])
		}
		in["TransactItems"], _ = json.Marshal(sub)
		b, _ := json.Marshal(in)
		a := forward(r.partition(part.table, part.pk, true), target, b)
		if a.status != http.StatusOK {
			if errorType(a.body) == "TransactionCanceledException" {
				return placeReasons(a, part.at, len(items))
			}
			return a
		}
	}
	return answer{status: http.StatusOK, body: []byte(`{}`)}
}

// placeReasons is a part's TransactionCanceledException with its
// CancellationReasons moved to the items' positions in the whole
// transaction of n items (at), so a caller that reads the reason of item
// i (store's conditionFailed) reads its own.
func placeReasons(a answer, at []int, n int) answer {
	var e map[string]json.RawMessage
	var reasons []map[string]json.RawMessage
	if json.Unmarshal(a.body, &e) != nil || json.Unmarshal(e["CancellationReasons"], &reasons) != nil || len(reasons) != len(at) {
		return a
	}
	all := make([]map[string]json.RawMessage, n)
	codes := make([]string, n)
	for i := range all {
		all[i], codes[i] = map[string]json.RawMessage{"Code": json.RawMessage(`"None"`)}, "None"
	}
	for j, i := range at {
		all[i] = reasons[j]
		_ = json.Unmarshal(reasons[j]["Code"], &codes[i])
	}
	e["CancellationReasons"], _ = json.Marshal(all)
	e["message"], _ = json.Marshal("Transaction cancelled, please refer cancellation reasons for specific reasons [" + strings.Join(codes, ", ") + "]")
	raw, _ := json.Marshal(e)
	return answer{status: a.status, body: raw}
}

// scan reads every partition of the table and answers their items in one
// page. Only whole-table Scans are served (the tests that count a table's
// items): a Limit, an ExclusiveStartKey or a parallel segment is refused,
// because a page's end would have to name a place among the partitions'
// servers, which no key does.
func (r *router) scan(target string, body []byte) answer {
	var in struct {
		TableName, IndexName string
		Limit, TotalSegments int
		Segment              *int
		ExclusiveStartKey    map[string]json.RawMessage
	}
	if err := json.Unmarshal(body, &in); err != nil {
		return validation(err.Error())
	}
	if in.Limit != 0 || in.ExclusiveStartKey != nil || in.TotalSegments != 0 || in.Segment != nil || in.IndexName != "" {
		return validation("the partitioned emulator scans whole tables only: no Limit, ExclusiveStartKey, Segment or IndexName")
	}
	r.mu.Lock()
	var parts []http.Handler
	if t := r.tables[in.TableName]; t != nil {
		for _, pk := range sortedKeys(t.parts) {
			parts = append(parts, t.parts[pk])
		}
	}
	r.mu.Unlock()
	if len(parts) == 0 {
		return forward(r.catalog, target, body)
	}
	var items []json.RawMessage
	count, scanned := 0, 0
	for _, h := range parts {
		a := forward(h, target, body)
		if a.status != http.StatusOK {
			return a
		}
		var out struct {
			Items         []json.RawMessage
			Count         int
			ScannedCount  int
			LastEvaluated map[string]json.RawMessage `json:"LastEvaluatedKey"`
		}
		if err := json.Unmarshal(a.body, &out); err != nil {
			return validation("a partition's Scan answer does not decode: " + err.Error())
		}
		if out.LastEvaluated != nil {
			return validation("a partition's Scan answer was paged, which the partitioned emulator does not merge")
		}
		items = append(items, out.Items...)
		count, scanned = count+out.Count, scanned+max(out.ScannedCount, out.Count)
	}
	if items == nil {
		items = []json.RawMessage{}
	}
	raw, _ := json.Marshal(map[string]any{"Items": items, "Count": count, "ScannedCount": scanned})
	return answer{status: http.StatusOK, body: raw}
}
