package llm

import (
	"encoding/base64"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// PartImage is a picture the user attached: Part.Image holds it.
const PartImage PartKind = "image"

// Image is a picture's bytes and media type. Data marshals as base64, so
// the store keeps it and gives back the very bytes.
type Image struct {
	MediaType string `json:"media_type"`
	Data      []byte `json:"data"`
}

// DataURL is the image as OpenAI's formats take it.
func (i *Image) DataURL() string {
	return "data:" + i.MediaType + ";base64," + base64.StdEncoding.EncodeToString(i.Data)
}

// MaxImageBytes is the largest image godwit sends: Anthropic refuses an
// image over 5 MiB as base64, which is 3.75 MiB of file.
const MaxImageBytes = 5 << 20 / 4 * 3

// ErrNotImage is returned for a file that is not a PNG, JPEG, GIF or
// WebP image.
var ErrNotImage = errors.New("not a PNG, JPEG, GIF or WebP image")

// IsImagePath reports whether path names an image by its extension.
func IsImagePath(path string) bool {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".png", ".jpg", ".jpeg", ".gif", ".webp":
		return true
	}
	return false
}

// ImageMediaType names data's format from its first bytes ("" when it is
// none of the four every vendor takes).
func ImageMediaType(data []byte) string {
	s := string(data[:min(len(data), 12)])
	switch {
	case strings.HasPrefix(s, "\x89PNG\r\n\x1a\n"):
		return "image/png"
	case strings.HasPrefix(s, "\xff\xd8\xff"):
		return "image/jpeg"
	case strings.HasPrefix(s, "GIF87a"), strings.HasPrefix(s, "GIF89a"):
		return "image/gif"
	case len(s) == 12 && s[:4] == "RIFF" && s[8:] == "WEBP":
		return "image/webp"
	}
	return ""
}

// ReadImage reads an image file into a part, refusing what no vendor
// takes: another format, or more than MaxImageBytes.
func ReadImage(path string) (Part, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return Part{}, err
	}
	if fi.Size() > MaxImageBytes {
		return Part{}, fmt.Errorf("%s is %.1f MiB; images up to %.2f MiB can be sent (scale it down or crop it)",
			path, float64(fi.Size())/(1<<20), float64(MaxImageBytes)/(1<<20))
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return Part{}, err
	}
	mt := ImageMediaType(data)
	if mt == "" {
		return Part{}, fmt.Errorf("%s: %w", path, ErrNotImage)
	}
	return Part{Kind: PartImage, Image: &Image{MediaType: mt, Data: data}}, nil
}
