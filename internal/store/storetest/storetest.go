// Package storetest opens stores for tests, as net/http/httptest serves
// them: a database that fails the test if it cannot be opened and is
// closed when the test ends. Only tests use it.
//
// Of godwit's packages it imports only internal/store.
package storetest

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/godwit/godwit/internal/store"
)

// Open opens a new, migrated store in a fresh t.TempDir().
func Open(t testing.TB, opts ...store.Option) *store.Store {
	t.Helper()
	return OpenAt(t, filepath.Join(t.TempDir(), "godwit.db"), opts...)
}

// OpenAt opens the store at path, creating it if needed: for a database
// another process (the godwit binary, a command under test) wrote or will
// read. It is closed when the test ends, before any temporary directory
// made earlier in the test is removed; a failing Close fails the test.
func OpenAt(t testing.TB, path string, opts ...store.Option) *store.Store {
	t.Helper()
	st, err := store.Open(context.Background(), path, opts...)
	if err != nil {
		t.Fatalf("storetest: %v", err)
	}
	t.Cleanup(func() {
		if err := st.Close(); err != nil {
			t.Errorf("storetest: %v", err)
		}
	})
	return st
}
