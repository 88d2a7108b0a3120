package zzscratch

import (
	"context"
	"os"
	"testing"

	"github.com/godwit/godwit/store"
)

func BenchmarkLoad(b *testing.B) {
	ctx := context.Background()
	src, _ := os.ReadFile("/tmp/i17/db300-mid.db")
	p := b.TempDir() + "/g.db"
	os.WriteFile(p, src, 0o600)
	st, err := store.Open(ctx, p)
	if err != nil {
		b.Fatal(err)
	}
	sess, _ := st.LastSession(ctx)
	cs, _ := st.Compactions(ctx, sess.ID, 1)
	stubs := map[string]bool{}
	for _, c := range cs {
		if c.Level == 2 {
			stubs[c.CallID] = true
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		ms, err := st.MessagesEliding(ctx, sess.ID, 1, func(id string) bool { return stubs[id] })
		if err != nil || len(ms) < 1000 {
			b.Fatal(err, len(ms))
		}
	}
}
