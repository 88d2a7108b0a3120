package storetest_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/godwit/godwit/internal/store"
	"github.com/godwit/godwit/internal/store/storetest"
)

func TestOpenIsFreshAndTakesOptions(t *testing.T) {
	t.Parallel()
	at := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	st := storetest.Open(t, store.WithClock(func() time.Time { return at }))
	ctx := context.Background()
	if last, err := st.LastSession(ctx); err == nil {
		t.Fatalf("a fresh store has a session: %+v", last)
	}
	id := store.NewID()
	if err := st.CreateSession(ctx, store.Session{ID: id}); err != nil {
		t.Fatal(err)
	}
	got, err := st.Session(ctx, id)
	if err != nil || !got.CreatedAt.Equal(at) {
		t.Errorf("session = %+v, %v; want it stamped %v by the given clock", got, err, at)
	}
}

func TestOpenAtSeesWhatAnotherOpenWrote(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "home", "godwit.db")
	id := store.NewID()
	if err := storetest.OpenAt(t, path).CreateSession(context.Background(), store.Session{ID: id}); err != nil {
		t.Fatal(err)
	}
	if _, err := storetest.OpenAt(t, path).Session(context.Background(), id); err != nil {
		t.Errorf("a second open of %s does not see the session: %v", path, err)
	}
}
