package testenv

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"

	"github.com/truora/minidyn/server"
)

// QueryPartitionFunc finds the partition key value, as its wire JSON, that
// a Query's key condition sets the partition key attribute pk to ("" when
// it sets none). The router takes it as an argument because the parser
// belongs to shared/store/limits, whose double must charge a Query to the
// partition the router serves it from, and one adapter may not import
// another (shared/globalsearch/layers_test.go): tests pass
// limits.QueryPartition.
type QueryPartitionFunc func(pk, cond string, names map[string]string, values map[string]json.RawMessage) string

// PartitionedMinidynHandler is MinidynHandler with one minidyn server per
// table and partition key value, created on first use with the table's
// CreateTable replayed, behind the same shim. minidyn v0.8.2 re-sorts
// every key of a table on each new item and walks every key of the table
// on each Query page, so one server holding 100,000 summaries is quadratic
// twice over; one server per partition pays only for that partition's
// items, which is what DynamoDB's own partitions do.
//
// Requests are routed as DynamoDB routes them: GetItem, PutItem,
// UpdateItem and DeleteItem by their key's or item's partition, Query by
// the partition its key condition names (queryPartition), BatchWriteItem
// and BatchGetItem split by partition with their answers merged,
// TransactWriteItems to its one partition (transact), and Scan to every
// partition of its table. The table definitions live in a catalog server
// that holds no item: CreateTable, DescribeTable, DeleteTable and
// ListTables go there, and the shim answers the TTL operations. Every
// other operation (UpdateTable, TransactGetItems, PartiQL) is refused with
// a ValidationException naming it: the store sends none of them. A
// partition is the key value's wire JSON made canonical, so a number's two
// spellings (1 and 1.0) are two partitions: the store keys every table by
// strings.
func PartitionedMinidynHandler(queryPartition QueryPartitionFunc) http.Handler {
	return shim{&router{
		catalog:        &serialized{next: server.NewServer()},
		queryPartition: queryPartition,
		tables:         map[string]*routedTable{},
	}}
}

// router is the handler behind the shim of PartitionedMinidynHandler.
type router struct {
	catalog        http.Handler
	queryPartition QueryPartitionFunc

	mu     sync.Mutex
	tables map[string]*routedTable
}

// routedTable is one table's definition and its partitions' servers.
type routedTable struct {
	create    []byte // the CreateTable body, replayed on each new server
	hash, rng string
	parts     map[string]http.Handler // canonical partition key value -> server
}

// serialized serves one request at a time: minidyn v0.8.2 reads and
// writes its table map without its lock in CreateTable, DescribeTable and
// DeleteTable, and the catalog serves those beside reads of every table.
// A partition's server has its table made before any request reaches it.
type serialized struct {
	mu   sync.Mutex
	next http.Handler
}

func (s *serialized) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.next.ServeHTTP(w, r)
}

// answer is what one server answered: its status and body.
type answer struct {
	status int
	body   []byte
}

func (r *router) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	body, err := io.ReadAll(req.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	target := req.Header.Get("X-Amz-Target")
	op := target[strings.LastIndexByte(target, '.')+1:]
	var a answer
	switch op {
	case "CreateTable":
		a = r.createTable(target, body)
	case "DeleteTable":
		a = r.deleteTable(target, body)
	case "DescribeTable", "ListTables":
		a = forward(r.catalog, target, body)
	case "PutItem", "GetItem", "UpdateItem", "DeleteItem":
		a = r.single(target, body)
	case "Query":
		a = r.query(target, body)
	case "BatchWriteItem":
		a = r.batchWrite(target, body)
	case "BatchGetItem":
		a = r.batchGet(target, body)
	case "TransactWriteItems":
		a = r.transact(target, body)
	case "Scan":
		a = r.scan(target, body)
	default:
		a = validation(fmt.Sprintf("the partitioned emulator does not serve %s", op))
	}
	w.Header().Set("Content-Type", "application/x-amz-json-1.0")
	w.WriteHeader(a.status)
	_, _ = w.Write(a.body)
}

// forward serves body on h as the operation target.
func forward(h http.Handler, target string, body []byte) answer {
	req := httptest.NewRequest(http.MethodPost, "/", bytes.NewReader(body))
	req.Header.Set("X-Amz-Target", target)
	req.Header.Set("Content-Type", "application/x-amz-json-1.0")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return answer{status: rec.Code, body: rec.Body.Bytes()}
}

// validation is DynamoDB's ValidationException with message.
func validation(message string) answer {
	raw, _ := json.Marshal(map[string]string{"__type": "com.amazon.coral.validate#ValidationException", "message": message})
	return answer{status: http.StatusBadRequest, body: raw}
}

// createTable creates the table in the catalog and, once the catalog took
// it, keeps its definition for the partitions' servers.
func (r *router) createTable(target string, body []byte) answer {
	a := forward(r.catalog, target, body)
	if a.status != http.StatusOK {
		return a
	}
	var in struct {
		TableName string
		KeySchema []struct{ AttributeName, KeyType string }
	}
	if err := json.Unmarshal(body, &in); err != nil {
		return validation(err.Error())
	}
	t := &routedTable{create: slices.Clone(body), parts: map[string]http.Handler{}}
	for _, k := range in.KeySchema {
		switch k.KeyType {
		case "HASH":
			t.hash = k.AttributeName
		case "RANGE":
			t.rng = k.AttributeName
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.tables[in.TableName] = t
	return a
}

// deleteTable drops the table from the catalog and its partitions with it.
func (r *router) deleteTable(target string, body []byte) answer {
	a := forward(r.catalog, target, body)
	var in struct{ TableName string }
	if a.status == http.StatusOK && json.Unmarshal(body, &in) == nil {
		r.mu.Lock()
		delete(r.tables, in.TableName)
		r.mu.Unlock()
	}
	return a
}

// table is the definition of the named table, nil when none was created.
func (r *router) table(name string) *routedTable {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.tables[name]
}

// partition is the server of table's partition whose key value is pk
// (wire JSON), created with the table's CreateTable on a write's first
// use. A read of a partition never written, a table never created, or a
// request without its partition key is served by the catalog, which holds
// every table and no item, and so answers as minidyn does: nothing read,
// the table not found, the key not matching the schema.
func (r *router) partition(table, pk string, write bool) http.Handler {
	r.mu.Lock()
	defer r.mu.Unlock()
	t := r.tables[table]
	if t == nil || pk == "" {
		return r.catalog
	}
	if h, ok := t.parts[pk]; ok || !write {
		if !ok {
			return r.catalog
		}
		return h
	}
	h := server.NewServer()
	forward(h, "DynamoDB_20120810.CreateTable", t.create)
	t.parts[pk] = h
	return h
}

// partitionOf is the canonical partition key value of an item or key of
// table, "" when it has none or the table is unknown.
func (r *router) partitionOf(table string, it map[string]json.RawMessage) string {
	t := r.table(table)
	if t == nil {
		return ""
	}
	return canonical(it[t.hash])
}

// canonical is raw with its object keys sorted and no spaces, so that two
// encodings of one key value route alike.
func canonical(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return string(raw)
	}
	out, _ := json.Marshal(v)
	return string(out)
}

// single routes a GetItem, PutItem, UpdateItem or DeleteItem by its Item's
// or Key's partition.
func (r *router) single(target string, body []byte) answer {
	var in struct {
		TableName string
		Item, Key map[string]json.RawMessage
	}
	if err := json.Unmarshal(body, &in); err != nil {
		return validation(err.Error())
	}
	it := in.Key
	if in.Item != nil {
		it = in.Item
	}
	// Only a put or an update can make an item; a get or a delete of a
	// partition never written is the catalog's (nothing there).
	write := strings.HasSuffix(target, ".PutItem") || strings.HasSuffix(target, ".UpdateItem")
	return forward(r.partition(in.TableName, r.partitionOf(in.TableName, it), write), target, body)
}

// query routes a Query to the partition its key condition names, so a
// page and the ExclusiveStartKey that continues it stay in that
// partition's server. A Query of a secondary index is refused: its
// partitions are not the table's.
func (r *router) query(target string, body []byte) answer {
	var in struct {
		TableName, IndexName string
		KeyCondition         string                     `json:"KeyConditionExpression"`
		Names                map[string]string          `json:"ExpressionAttributeNames"`
		Values               map[string]json.RawMessage `json:"ExpressionAttributeValues"`
	}
	if err := json.Unmarshal(body, &in); err != nil {
		return validation(err.Error())
	}
	if in.IndexName != "" {
		return validation("the partitioned emulator does not query secondary indexes (index " + in.IndexName + ")")
	}
	t := r.table(in.TableName)
	if t == nil {
		return forward(r.catalog, target, body)
	}
	pk := canonical(json.RawMessage(r.queryPartition(t.hash, in.KeyCondition, in.Names, in.Values)))
	if pk == "" {
		return validation("Query condition missed key schema element: " + t.hash)
	}
	return forward(r.partition(in.TableName, pk, false), target, body)
}
