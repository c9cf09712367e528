package memstore_test

import (
	"testing"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/store/memstore"
	"github.com/graphrag-global/graphrag-global/shared/store/storetest"
)

func TestConformance(t *testing.T) {
	storetest.Run(t, func(*testing.T) storetest.Store { return memstore.New() })
}

func TestStandingConformance(t *testing.T) {
	storetest.RunStanding(t, func(*testing.T) globalsearch.Standing { return memstore.New() })
}
