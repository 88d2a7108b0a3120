package window

import (
	"bytes"
	"context"
	"image"
	"image/png"
	"testing"

	"github.com/godwit/godwit/llm"
)

func pngOf(t *testing.T, w, h int) *llm.Image {
	t.Helper()
	var b bytes.Buffer
	if err := png.Encode(&b, image.NewGray(image.Rect(0, 0, w, h))); err != nil {
		t.Fatal(err)
	}
	return &llm.Image{MediaType: "image/png", Data: b.Bytes()}
}

func TestImageTokens(t *testing.T) {
	tests := []struct {
		name string
		im   *llm.Image
		want int
	}{
		{"small", pngOf(t, 200, 100), 27},
		{"square", pngOf(t, 1000, 1000), 1334},
		{"scaled", pngOf(t, 3136, 300), 314}, // 1568×150
		{"capped", pngOf(t, 3000, 2000), imageMaxTokens},
		{"webp", &llm.Image{MediaType: "image/webp", Data: []byte("RIFF\x10\x00\x00\x00WEBPVP8 ")}, imageMaxTokens},
	}
	for _, tt := range tests {
		if got := ImageTokens(tt.im); got != tt.want {
			t.Errorf("%s: %d tokens, want %d", tt.name, got, tt.want)
		}
	}
}

// An image in the conversation counts in the request's size, in the
// messages part, by its estimate.
func TestAnImageCountsInTheWindow(t *testing.T) {
	w := newWindow(&MemPages{}, 32_000)
	im := pngOf(t, 1000, 1000)
	asm := func(parts ...llm.Part) Assembly {
		a, err := w.Assemble(context.Background(), Input{SessionID: "s", Segment: 1, Messages: []llm.Message{{Role: llm.RoleUser, Parts: parts}}})
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	text := asm(llm.TextPart("what is this?"))
	with := asm(llm.TextPart("what is this?"), llm.Part{Kind: llm.PartImage, Image: im})
	if d := with.Tokens - text.Tokens; d != ImageTokens(im) {
		t.Errorf("the image added %d tokens, want %d", d, ImageTokens(im))
	}
}
