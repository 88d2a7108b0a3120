package catalog

import "testing"

func BenchmarkNew(b *testing.B) {
	for b.Loop() {
		if _, err := New(); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkResolve(b *testing.B) {
	c, err := New()
	if err != nil {
		b.Fatal(err)
	}
	for _, ref := range [][2]string{
		{"anthropic", "claude-sonnet-4-5"},
		{"anthropic", "claude-sonnet-4-5-20250929"},
		{"ollama", "qwen3-coder"},
	} {
		b.Run(ref[0]+"/"+ref[1], func(b *testing.B) {
			for b.Loop() {
				c.Resolve(ref[0], ref[1])
			}
		})
	}
}
