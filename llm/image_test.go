package llm

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReadImage(t *testing.T) {
	// Not t.TempDir: .ci/run runs this package's tests under wine 8.0,
	// whose gap fails t.TempDir's clean-up, which says nothing of llm.
	dir, err := os.MkdirTemp("", "llm-image-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	write := func(name, data string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, tt := range []struct{ name, data, want string }{
		{"a.png", "\x89PNG\r\n\x1a\n....", "image/png"},
		{"a.jpg", "\xff\xd8\xff\xe0..", "image/jpeg"},
		{"a.gif", "GIF89a..", "image/gif"},
		{"a.webp", "RIFF\x10\x00\x00\x00WEBPVP8 ", "image/webp"},
	} {
		p, err := ReadImage(write(tt.name, tt.data))
		if err != nil || p.Kind != PartImage || p.Image.MediaType != tt.want || string(p.Image.Data) != tt.data {
			t.Errorf("%s: %+v, %v", tt.name, p, err)
		}
		if !IsImagePath(tt.name) {
			t.Errorf("IsImagePath(%s) = false", tt.name)
		}
		// The store gives back the very bytes.
		b, _ := json.Marshal(p)
		var back Part
		if err := json.Unmarshal(b, &back); err != nil || string(back.Image.Data) != tt.data {
			t.Errorf("%s: round trip %s: %v", tt.name, b, err)
		}
	}
	if _, err := ReadImage(write("fake.png", "hello")); !errors.Is(err, ErrNotImage) {
		t.Errorf("a text file named .png: %v", err)
	}
	big := write("big.png", "\x89PNG\r\n\x1a\n"+strings.Repeat("x", MaxImageBytes))
	if _, err := ReadImage(big); err == nil || !strings.Contains(err.Error(), "images up to 3.75 MiB") {
		t.Errorf("an image over the cap: %v", err)
	}
}
