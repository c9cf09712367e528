package offline_test

import (
	"testing"

	"github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/llm/modeltest"
	"github.com/graphrag-global/graphrag-global/shared/llm/offline"
)

func TestConformance(t *testing.T) {
	modeltest.Run(t, func(*testing.T) globalsearch.Model { return offline.New() })
}
