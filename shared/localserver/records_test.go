package localserver

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphrag-global/graphrag-global/shared/indexfile/indexfiletest"
	"github.com/graphrag-global/graphrag-global/shared/lookup"
)

func TestServeRecordsRouteAnswersWhatShowPrints(t *testing.T) {
	f := indexfiletest.Graph()
	_, srv := localServerOver(t, f, nil)
	tests := []struct {
		name, path string
		kind       lookup.Kind
		check      func(t *testing.T, r lookup.Record)
	}{
		{"a root community, its leaves' claims, entities and relationships", "/namespaces/tiny/records/root", lookup.KindCommunity, func(t *testing.T, r lookup.Record) {
			c := r.Community
			require.NotNil(t, c)
			assert.Equal(t, f.Summaries[0].Title, c.Title)
			assert.Len(t, c.Children, 2)
			assert.Equal(t, []string{f.Claims[0].ID}, []string{c.Claims[0].ID})
			assert.Equal(t, f.Chunks[0].TextUnitID, c.Excerpts[0].TextUnitID)
			assert.Equal(t, []lookup.Document{{ID: f.Chunks[0].DocumentID, Title: f.Chunks[0].DocumentTitle}}, c.Documents)
			assert.Equal(t, []string{f.Chunks[0].TextUnitID}, c.TextUnitIDs)
			assert.Len(t, c.Entities, len(f.Entities))
			assert.Equal(t, f.Relationships, c.Relationships)
		}},
		{"a limit cuts each list and counts the rest", "/namespaces/tiny/records/root?limit=1", lookup.KindCommunity, func(t *testing.T, r lookup.Record) {
			require.NotNil(t, r.Community)
			assert.Len(t, r.Community.Entities, 1)
			assert.Equal(t, map[string]int{"entities": len(f.Entities) - 1}, r.Community.Omitted)
		}},
		{"a claim with its excerpt and community", "/namespaces/tiny/records/k1", lookup.KindClaim, func(t *testing.T, r lookup.Record) {
			require.NotNil(t, r.Claim)
			assert.Equal(t, f.Claims[0].CommunityID, r.Claim.Community.ID)
			assert.Equal(t, f.Chunks, r.Claim.Excerpts)
		}},
		{"a chunk", "/namespaces/tiny/records/c1", lookup.KindChunk, func(t *testing.T, r lookup.Record) {
			assert.Equal(t, &f.Chunks[0], r.Chunk)
		}},
		{"an entity", "/namespaces/tiny/records/e-grid?kind=entity", lookup.KindEntity, func(t *testing.T, r lookup.Record) {
			assert.Equal(t, &f.Entities[0], r.Entity)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := overHTTP(t, srv, http.MethodGet, tt.path, "", nil)
			require.Equal(t, http.StatusOK, got.status, got.body)
			var r lookup.Record
			require.NoError(t, json.Unmarshal([]byte(got.body), &r))
			assert.Equal(t, f.Namespace, r.Namespace)
			assert.Equal(t, tt.kind, r.Kind)
			tt.check(t, r)
		})
	}
}

func TestServeReportsRouteListsReportsByLevel(t *testing.T) {
	f := indexfiletest.Graph()
	_, srv := localServerOver(t, f, nil)
	got := overHTTP(t, srv, http.MethodGet, "/namespaces/tiny/reports", "", nil)
	require.Equal(t, http.StatusOK, got.status, got.body)
	var r lookup.ReportList
	require.NoError(t, json.Unmarshal([]byte(got.body), &r))
	assert.Equal(t, lookup.ReportList{Namespace: f.Namespace, Levels: []lookup.Level{
		{Level: 0, Reports: []lookup.Ref{{ID: "root", Title: f.Summaries[0].Title, Level: 0}}},
		{Level: 1, Reports: []lookup.Ref{{ID: "fish", Title: f.Summaries[1].Title, Level: 1}, {ID: "solar", Title: f.Summaries[2].Title, Level: 1}}},
	}}, r)
}

func TestServeRecordRoutesRefuseBadRequests(t *testing.T) {
	_, srv := localServerOver(t, indexfiletest.Graph(), nil)
	tests := []struct {
		name, method, path string
		status             int
		wantErr            string
	}{
		{"records takes GET only", http.MethodPost, "/namespaces/tiny/records/root", 405, "method_not_allowed"},
		{"records: bad namespace", http.MethodGet, "/namespaces/Bad!/records/root", 400, "invalid_input"},
		{"records: unknown id", http.MethodGet, "/namespaces/tiny/records/nope", 404, `in namespace \"tiny\"`},
		{"records: unknown id of one kind", http.MethodGet, "/namespaces/tiny/records/root?kind=claim", 404, "no claim has id root"},
		{"records: bad kind", http.MethodGet, "/namespaces/tiny/records/root?kind=report", 400, "kind must be one of"},
		{"records: bad limit", http.MethodGet, "/namespaces/tiny/records/root?limit=0", 400, "limit must be a whole number"},
		{"records: limit not a number", http.MethodGet, "/namespaces/tiny/records/root?limit=x", 400, "limit must be a whole number"},
		{"records: malformed id", http.MethodGet, "/namespaces/tiny/records/a%7Cb", 400, "invalid_input"},
		{"records: another namespace", http.MethodGet, "/namespaces/other/records/root", 404, `in namespace \"other\"`},
		{"reports takes GET only", http.MethodDelete, "/namespaces/tiny/reports", 405, "method_not_allowed"},
		{"reports: bad namespace", http.MethodGet, "/namespaces/Bad!/reports", 400, "invalid_input"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := overHTTP(t, srv, tt.method, tt.path, "", nil)
			assert.Equal(t, tt.status, got.status)
			assert.Contains(t, got.body, tt.wantErr)
		})
	}
}
