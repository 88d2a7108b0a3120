package window

import (
	"bytes"
	"image"
	_ "image/gif" // registered for DecodeConfig
	_ "image/jpeg"
	_ "image/png"

	"github.com/godwit/godwit/llm"
)

// Anthropic's documented cost of an image: (width × height) / 750
// tokens, after scaling the long edge to at most 1568 px, which keeps an
// image near 1600 tokens at most. OpenAI's tile formula charges less
// (765 for 1024×1024 at high detail), so this is the larger estimate on
// every format.
const (
	imageMaxEdge   = 1568
	imageMaxTokens = 1600
)

// ImageTokens estimates what an image costs in a request, from its
// header alone; an image whose size cannot be read (WebP, which the
// standard library does not decode) counts as the most one can cost.
func ImageTokens(im *llm.Image) int {
	if im == nil {
		return 0
	}
	cfg, _, err := image.DecodeConfig(bytes.NewReader(im.Data))
	if err != nil || cfg.Width <= 0 || cfg.Height <= 0 {
		return imageMaxTokens
	}
	w, h := float64(cfg.Width), float64(cfg.Height)
	if long := max(w, h); long > imageMaxEdge {
		w, h = w*imageMaxEdge/long, h*imageMaxEdge/long
	}
	return min(int(w*h/750)+1, imageMaxTokens)
}
