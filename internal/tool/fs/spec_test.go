package fs_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/tiktoken-go/tokenizer"

	"github.com/godwit/godwit/internal/goldentest"
	"github.com/godwit/godwit/internal/tool/fs"
)

// maxSpecTokens is the budget of all five tool specs together (o200k);
// the target is well under 1,500.
const maxSpecTokens = 1000

// TestSpecSizes pins each tool's description and schema size, so that
// growth of what every request carries is a deliberate change: run
// go test ./internal/tool/fs -run TestSpecSizes -update and commit the golden file.
func TestSpecSizes(t *testing.T) {
	ws, _ := newWS(t, nil)
	codec, err := tokenizer.Get(tokenizer.O200kBase)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	total := 0
	for _, tl := range fs.Tools(ws, fs.Options{}) {
		spec := tl.Spec()
		if !json.Valid(spec.Schema) {
			t.Errorf("%s: schema is not JSON", spec.Name)
		}
		// Count what a provider is sent: name, description and schema.
		whole, _ := json.Marshal(spec)
		n, err := codec.Count(string(whole))
		if err != nil {
			t.Fatal(err)
		}
		total += n
		fmt.Fprintf(&b, "%s description=%d schema=%d tokens=%d\n", spec.Name, len(spec.Description), len(spec.Schema), n)
	}
	fmt.Fprintf(&b, "total tokens=%d\n", total)
	t.Logf("tool specs:\n%s", b.String())
	goldentest.Check(t, "specs.golden", []byte(b.String()))
	if total > maxSpecTokens {
		t.Errorf("tool specs take %d tokens, budget %d", total, maxSpecTokens)
	}
}

// TestSchemasMatchArgs checks that each schema names exactly the
// arguments its tool accepts: an argument missing from the schema could
// never be sent, and one the tool rejects would fail every call.
func TestSchemasMatchArgs(t *testing.T) {
	ws, _ := newWS(t, map[string]string{"f.txt": "a\n"})
	for _, tl := range fs.Tools(ws, fs.Options{}) {
		var s struct {
			Properties map[string]json.RawMessage `json:"properties"`
			Required   []string                   `json:"required"`
		}
		if err := json.Unmarshal(tl.Spec().Schema, &s); err != nil {
			t.Fatal(err)
		}
		for _, r := range s.Required {
			if _, ok := s.Properties[r]; !ok {
				t.Errorf("%s: required %q is not a property", tl.Name(), r)
			}
		}
		// Every property is accepted: a call sending only it fails, if at
		// all, for another reason than an unknown argument.
		for name := range s.Properties {
			_, te := call(t, tl, fmt.Sprintf(`{%q: null}`, name))
			if te != nil && strings.Contains(te.Message, "unknown argument") {
				t.Errorf("%s rejects its own property %q", tl.Name(), name)
			}
		}
	}
}
