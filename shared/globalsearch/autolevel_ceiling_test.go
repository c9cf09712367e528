package globalsearch_test

import (
	"context"
	"math"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	gs "github.com/graphrag-global/graphrag-global/shared/globalsearch"
	"github.com/graphrag-global/graphrag-global/shared/graphrag"
	"github.com/graphrag-global/graphrag-global/shared/graphrag/corpus"
	"github.com/graphrag-global/graphrag-global/shared/indexfile"
	"github.com/graphrag-global/graphrag-global/shared/store/memstore"
)

var atLeast = regexp.MustCompile(`raise maxMapInputTokens to at least (\d+)$`)

// maxMapInputTokens is a ceiling on what the plan reports
// (docs/contract.md#auto-level): at every rung of the Christmas Carol
// output and of a generated index, a ceiling at the rung's size (the
// figure the choice once rested on), just under it and a little over it
// gives a plan whose estimatedMapInputTokens is within it, from the finest
// rung whose plan fits; when none fits, the ceiling the message names
// plans.
func TestAutoLevelCeilingBoundsThePlan(t *testing.T) {
	indexes := map[string]func(t *testing.T) gs.Records{
		"christmas carol": func(t *testing.T) gs.Records {
			records, _, err := graphrag.Import(context.Background(), corpus.Dir(t, corpus.ChristmasCarol), graphrag.Options{})
			require.NoError(t, err)
			return records
		},
		"generated": func(t *testing.T) gs.Records {
			out := filepath.Join(t.TempDir(), "index-2000.json")
			cmd := exec.Command("go", "run", "./testdata/gen", "--summaries", "2000", "--out", out)
			cmd.Dir = filepath.Join("..", "..")
			msg, err := cmd.CombinedOutput()
			require.NoError(t, err, "generate the index: %s", msg)
			f, err := indexfile.Load(out)
			require.NoError(t, err)
			return f.Records
		},
	}
	for name, records := range indexes {
		t.Run(name, func(t *testing.T) {
			s := memstore.New()
			require.NoError(t, s.ReplaceNamespace(context.Background(), "default", records(t)))
			e := &gs.Engine{Index: s}
			plan := func(ceiling int) (gs.Plan, error) {
				level, seed := gs.AutoLevel, int64(1)
				d := gs.SpecDefaults
				d.MaxModelCalls = 100000 // the leaves of 2,000 summaries, planned only
				p, err := gs.Request{Query: "What changed?", CommunityLevel: &level, MaxMapInputTokens: &ceiling,
					ShuffleSeed: &seed}.Params(d)
				require.NoError(t, err)
				return e.Plan(context.Background(), p)
			}
			all, err := plan(math.MaxInt32)
			require.NoError(t, err)
			require.NotNil(t, all.AutoLevel)
			ladder := all.AutoLevel.Ladder
			require.Greater(t, len(ladder), 1, "the index needs rungs to choose between")
			for _, r := range ladder {
				for _, ceiling := range []int{r.MapInputTokens - 1, r.MapInputTokens, r.MapInputTokens + r.MapInputTokens/20} {
					got, err := plan(ceiling)
					if err != nil {
						assert.Equal(t, gs.KindInvalidInput, gs.KindOf(err), "%d: %v", ceiling, err)
						m := atLeast.FindStringSubmatch(err.Error())
						require.NotNil(t, m, err.Error())
						need, _ := strconv.Atoi(m[1])
						assert.Greater(t, need, ceiling)
						fits, err := plan(need)
						require.NoError(t, err, "the ceiling named fits")
						assert.Equal(t, need, fits.MapInputTokens(), "and is the least plan")
						continue
					}
					assert.LessOrEqual(t, got.MapInputTokens(), ceiling, "level %s under %d", got.AutoLevel.LevelUsed, ceiling)
					for _, finer := range got.AutoLevel.Ladder {
						if finer.Level == got.AutoLevel.LevelUsed {
							assert.Equal(t, got.MapInputTokens(), finer.PlannedMapInputTokens, "the ladder holds the plan's figure")
							break
						}
						if finer.MapInputTokens <= ceiling {
							assert.Greater(t, finer.PlannedMapInputTokens, ceiling, "a finer rung within %d was packed and did not fit", ceiling)
						}
					}
				}
			}
		})
	}
}
