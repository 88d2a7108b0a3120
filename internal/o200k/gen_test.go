package o200k

import (
	"flag"
	"os"
	"testing"

	"github.com/tiktoken-go/tokenizer"
)

var update = flag.Bool("update", false, "write vocab.bin from tiktoken-go's o200k_base")

// TestGenerate writes vocab.bin, the ranked vocabulary, from the
// reference implementation (go test -run Generate -update ./internal/o200k).
func TestGenerate(t *testing.T) {
	if !*update {
		t.Skip("-update writes vocab.bin")
	}
	enc, err := tokenizer.Get(tokenizer.O200kBase)
	if err != nil {
		t.Fatal(err)
	}
	var tokens []string
	for id := uint(0); ; id++ {
		s, err := enc.Decode([]uint{id})
		if err != nil {
			break // the ranks are dense up to the special tokens
		}
		tokens = append(tokens, s)
	}
	out := build(tokens)
	if err := os.WriteFile("vocab.bin", out, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d tokens, %d bytes", len(tokens), len(out))
}
