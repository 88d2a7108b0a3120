package sandbox

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestCover: past the limit, the deepest secrets give way to their
// folders, and every secret stays covered; .env at the root keeps its
// own mount however many keys a repository pads the list with.
func TestCover(t *testing.T) {
	root := filepath.FromSlash("/w")
	var pad []string
	for i := range 300 {
		pad = append(pad, filepath.Join(root, ".a", fmt.Sprintf("k%d.pem", i)))
	}
	env := filepath.Join(root, ".env")
	for _, tc := range []struct {
		name    string
		secrets []string
		limit   int
		want    []string
	}{
		{"under the limit", []string{env, pad[0]}, 4, []string{env, pad[0]}},
		{"padded", append(slices.Clone(pad), env), 256, []string{filepath.Join(root, ".a"), env}},
		{"deep first", []string{env, filepath.Join(root, "a", "b", "x.key"), filepath.Join(root, "a", "y.key")}, 2,
			[]string{env, filepath.Join(root, "a")}},
		{"one folder", pad, 1, []string{filepath.Join(root, ".a")}},
		{"stops at the root", pad, 0, []string{root}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := cover(tc.secrets, root, tc.limit)
			slices.Sort(got)
			slices.Sort(tc.want)
			if !slices.Equal(got, tc.want) {
				t.Errorf("cover: %v, want %v", got, tc.want)
			}
			for _, s := range tc.secrets {
				if !slices.ContainsFunc(got, func(c string) bool { return c == s || strings.HasPrefix(s, c+string(filepath.Separator)) }) {
					t.Errorf("%s is not covered by %v", s, got)
				}
			}
		})
	}
}
