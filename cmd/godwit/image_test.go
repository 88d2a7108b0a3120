package main

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/godwit/godwit/llm/llmtest"
)

// imageWorkspace writes config.yaml naming a provider of type typ at url
// (its model m taking images when images is set) and a 2×2 PNG,
// shot.png; it returns home, the workspace and the PNG as base64.
func imageWorkspace(t *testing.T, typ, url string, images bool) (home, ws, b64 string) {
	t.Helper()
	home, ws = t.TempDir(), t.TempDir()
	if typ != "anthropic" {
		url += "/v1"
	}
	cfg := fmt.Sprintf("providers:\n  local:\n    type: %s\n    base_url: %s\n    no_key: true\n", typ, url)
	if images {
		cfg += "    models:\n      - id: m\n        images: true\n"
	}
	var b bytes.Buffer
	if err := png.Encode(&b, image.NewGray(image.Rect(0, 0, 2, 2))); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, "config.yaml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, "shot.png"), b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return home, ws, base64.StdEncoding.EncodeToString(b.Bytes())
}

// `run --image` sends the picture as each wire format documents it, in
// the user's message beside the prompt; the store keeps it, and the
// session's next process sends the same bytes for it (the provider's
// prompt cache still covers it).
func TestRunSendsAnImage(t *testing.T) {
	t.Parallel()
	formats := []struct {
		typ     string
		replies []llmtest.Reply
		want    string // %s is the image's base64
	}{
		{"openai-chat", []llmtest.Reply{llmtest.ChatTextReply("a grey square", 900, 4), llmtest.ChatTextReply("still grey", 950, 3)},
			`{"content":[{"text":"what is this?","type":"text"},{"image_url":{"url":"data:image/png;base64,%s"},"type":"image_url"}],"role":"user"}`},
		{"openai-responses", []llmtest.Reply{llmtest.ResponsesTextReply("a grey square", 900, 4), llmtest.ResponsesTextReply("still grey", 950, 3)},
			`{"content":[{"text":"what is this?","type":"input_text"},{"detail":"auto","image_url":"data:image/png;base64,%s","type":"input_image"}],"role":"user"}`},
		{"anthropic", []llmtest.Reply{
			llmtest.AnthropicReply(llmtest.AnthropicText("a grey square"), llmtest.AnthropicUsage(900, 4, 0, 0)),
			llmtest.AnthropicReply(llmtest.AnthropicText("still grey"), llmtest.AnthropicUsage(950, 3, 0, 0)),
		}, `{"type":"text","text":"what is this?"},{"type":"image","source":{"type":"base64","media_type":"image/png","data":"%s"}`},
	}
	for _, f := range formats {
		t.Run(f.typ, func(t *testing.T) {
			t.Parallel()
			srv := llmtest.NewTestServer(t, f.replies...)
			home, ws, b64 := imageWorkspace(t, f.typ, srv.URL(), true)
			first := godwit(t, home, ws, nil, "run", "--json", "--model", "local/m", "--image", "shot.png", "what is this?")
			if first.code != 0 {
				t.Fatalf("turn 1: exit %d\n%s", first.code, first.stderr)
			}
			second := godwit(t, home, ws, nil, "run", "--json", "--model", "local/m", "--session", sessionID(t, first.stdout), "and now?")
			if second.code != 0 {
				t.Fatalf("turn 2: exit %d\n%s", second.code, second.stderr)
			}
			reqs := srv.Requests()
			if len(reqs) != 2 {
				t.Fatalf("%d requests", len(reqs))
			}
			want := fmt.Sprintf(f.want, b64)
			for i, r := range reqs {
				if !bytes.Contains(r.Body, []byte(want)) {
					t.Errorf("request %d lacks the image as %s:\n%s", i+1, want, r.Body)
				}
			}
			prev, next := cacheItems(t, f.typ, reqs[0].Body), cacheItems(t, f.typ, reqs[1].Body)
			if len(next) <= len(prev) {
				t.Fatalf("the resumed request has %d items, the first %d", len(next), len(prev))
			}
			for i := range prev {
				if !bytes.Equal(prev[i], next[i]) {
					t.Fatalf("item %d differs across processes:\n first: %s\n next: %s", i, prev[i], next[i])
				}
			}
		})
	}
}

// An image for a model that takes none, or a file that is no image, is
// refused before anything is sent, saying what to do.
func TestRunRefusesAnImageItCannotSend(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewTestServer(t)
	home, ws, _ := imageWorkspace(t, "openai-chat", srv.URL(), false)
	if err := os.WriteFile(filepath.Join(ws, "notes.png"), []byte("just text"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"-i", "shot.png"}, 1, "local/m does not take images: pick a model that does"},
		{[]string{"-i", "notes.png"}, 2, "notes.png: not a PNG, JPEG, GIF or WebP image"},
		{[]string{"-i", "missing.png"}, 2, "--image: stat "},
	} {
		r := godwit(t, home, ws, nil, append([]string{"run", "--model", "local/m", "what is this?"}, tt.args...)...)
		if r.code != tt.code || !strings.Contains(r.stderr, tt.want) {
			t.Errorf("%v: exit %d, want %d with %q:\n%s", tt.args, r.code, tt.code, tt.want, r.stderr)
		}
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("%d requests were sent", n)
	}
}

// In the chat, @path of a picture attaches the picture: the transcript
// says so and the request carries it as an image, not as text.
func TestChatAttachesAnImage(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewTestServer(t, llmtest.ChatTextReply("a grey square", 900, 4))
	home, ws, b64 := imageWorkspace(t, "openai-chat", srv.URL(), true)
	s := newTmux(t, home)
	s.chat(ws, "--model", "local/m")
	s.waitFor("new session")
	s.typeLine("what is @shot.png?")
	sc := s.waitFor("a grey square")
	if !strings.Contains(sc, "⊕ attached image shot.png") {
		t.Errorf("the transcript does not say what was attached:\n%s", sc)
	}
	reqs := srv.Requests()
	want := `{"image_url":{"url":"data:image/png;base64,` + b64 + `"},"type":"image_url"}`
	if len(reqs) != 1 || !bytes.Contains(reqs[0].Body, []byte(want)) {
		t.Errorf("the request lacks the image:\n%s", reqs)
	}
}

// A session whose model is switched to one that takes no images sends
// its history's image as a line saying it was left out: the vendor would
// refuse the whole request.
func TestSwitchedModelLeavesTheImageOut(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewTestServer(t, llmtest.ChatTextReply("a grey square", 900, 4), llmtest.ChatTextReply("noted", 950, 3))
	home, ws, b64 := imageWorkspace(t, "openai-chat", srv.URL(), true)
	first := godwit(t, home, ws, nil, "run", "--json", "--model", "local/m", "--image", "shot.png", "what is this?")
	if first.code != 0 {
		t.Fatalf("turn 1: exit %d\n%s", first.code, first.stderr)
	}
	second := godwit(t, home, ws, nil, "run", "--model", "local/text-only", "--session", sessionID(t, first.stdout), "and now?")
	if second.code != 0 {
		t.Fatalf("turn 2: exit %d\n%s", second.code, second.stderr)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests", len(reqs))
	}
	if body := reqs[1].Body; bytes.Contains(body, []byte(b64)) || !bytes.Contains(body, []byte("[image left out: this model takes no images]")) {
		t.Errorf("the second model's request:\n%s", body)
	}
}
