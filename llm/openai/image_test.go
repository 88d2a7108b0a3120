package openai

import (
	"strings"
	"testing"

	"github.com/godwit/godwit/llm"
)

// An image goes as each API documents it, as a data URL, in the user's
// message with the text beside it, in the order attached; alone, it is
// still a message of its own.
func TestImageParts(t *testing.T) {
	img := llm.Part{Kind: llm.PartImage, Image: &llm.Image{MediaType: "image/png", Data: []byte("\x89PNG\r\n\x1a\nxx")}}
	url := "data:image/png;base64,iVBORw0KGgp4eA=="
	o := Options{BaseURL: "http://127.0.0.1:1/v1"}
	tests := []struct {
		api   string
		parts []llm.Part
		want  string
	}{
		{"chat", []llm.Part{llm.TextPart("what is this?"), img},
			`"messages":[{"content":[{"text":"what is this?","type":"text"},{"image_url":{"url":"` + url + `"},"type":"image_url"}],"role":"user"}]`},
		{"chat", []llm.Part{img},
			`"messages":[{"content":[{"image_url":{"url":"` + url + `"},"type":"image_url"}],"role":"user"}]`},
		{"responses", []llm.Part{llm.TextPart("what is this?"), img},
			`"input":[{"content":[{"text":"what is this?","type":"input_text"},{"detail":"auto","image_url":"` + url + `","type":"input_image"}],"role":"user"}]`},
		{"responses", []llm.Part{img},
			`"input":[{"content":[{"detail":"auto","image_url":"` + url + `","type":"input_image"}],"role":"user"}]`},
	}
	for _, tt := range tests {
		body := wireBody(tt.api, o, llm.Request{Model: "m", Messages: []llm.Message{{Role: llm.RoleUser, Parts: tt.parts}}})
		if !strings.Contains(body, tt.want) {
			t.Errorf("%s: body lacks\n%s\n%s", tt.api, tt.want, body)
		}
	}
	for _, api := range []string{"chat", "responses"} {
		body := wireBody(api, o, llm.Request{Model: "m", Messages: []llm.Message{{Role: llm.RoleAssistant, Parts: []llm.Part{img}}}})
		if !strings.HasPrefix(body, "error: ") || !strings.Contains(body, "only in a user message") {
			t.Errorf("%s: an image in an assistant message: %s", api, body)
		}
	}
}
