package llmtest

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

// A func server answers each request from what it was sent, on any path,
// and keeps no record of its own.
func TestFuncServerAnswersFromTheRequest(t *testing.T) {
	s := NewFuncServer(func(c Captured) Reply {
		if c.Method != http.MethodPost {
			return JSON(http.StatusMethodNotAllowed, `{}`)
		}
		return Reply{Body: c.Path + " " + string(c.Body)}
	})
	defer s.Close()
	for _, tc := range []struct{ method, path, body, want string }{
		{http.MethodPost, "/v1/messages", "hi", "/v1/messages hi"},
		{http.MethodPost, "/v1/responses", "", "/v1/responses "},
		{http.MethodGet, "/v1/models", "", "{}"},
	} {
		req, _ := http.NewRequest(tc.method, s.URL()+tc.path, strings.NewReader(tc.body))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if string(got) != tc.want {
			t.Errorf("%s %s = %q, want %q", tc.method, tc.path, got, tc.want)
		}
	}
	if n := len(s.Requests()); n != 0 {
		t.Errorf("%d requests recorded, want none", n)
	}
}
