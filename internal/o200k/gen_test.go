package o200k

import (
	"encoding/binary"
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

// build lays out vocab.bin for tokens ranked in order (the generator's).
func build(tokens []string) []byte {
	n := len(tokens)
	m := 1
	for m < 2*n {
		m <<= 1
	}
	off := make([]uint32, n+1)
	for r, tok := range tokens {
		off[r+1] = off[r] + uint32(len(tok))
	}
	slots := make([]uint32, m)
	for r, tok := range tokens {
		h := hash(tok) & uint64(m-1)
		for slots[h] != 0 {
			h = (h + 1) & uint64(m-1)
		}
		slots[h] = uint32(r + 1)
	}
	out := []byte(magic)
	out = binary.LittleEndian.AppendUint32(out, uint32(n))
	out = binary.LittleEndian.AppendUint32(out, uint32(m))
	for _, o := range off {
		out = binary.LittleEndian.AppendUint32(out, o)
	}
	for _, sl := range slots {
		out = binary.LittleEndian.AppendUint32(out, sl)
	}
	for _, tok := range tokens {
		out = append(out, tok...)
	}
	return out
}
