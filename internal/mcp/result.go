package mcp

import (
	"encoding/json"
	"fmt"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// resultText renders a call's result as the text the model reads: text
// parts as they are, a note for each part it cannot read (images, audio,
// binary resources), the structured content when nothing else was sent,
// cut at MaxResult bytes.
func resultText(res *sdk.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		parts = append(parts, contentText(c))
	}
	if len(parts) == 0 && res.StructuredContent != nil {
		if b, err := json.Marshal(res.StructuredContent); err == nil {
			parts = append(parts, string(b))
		}
	}
	return capText(strings.Join(parts, "\n"), MaxResult)
}

func contentText(c sdk.Content) string {
	switch v := c.(type) {
	case *sdk.TextContent:
		return v.Text
	case *sdk.ImageContent:
		return fmt.Sprintf("[image %s, %s: not shown]", mimeOr(v.MIMEType, "image"), size(len(v.Data)))
	case *sdk.AudioContent:
		return fmt.Sprintf("[audio %s, %s: not shown]", mimeOr(v.MIMEType, "audio"), size(len(v.Data)))
	case *sdk.ResourceLink:
		s := "[resource link " + v.URI
		if v.Name != "" {
			s += " (" + v.Name + ")"
		}
		if v.Description != "" {
			s += ": " + oneLine(v.Description, 200)
		}
		return s + "]"
	case *sdk.EmbeddedResource:
		r := v.Resource
		if r == nil {
			return "[empty resource]"
		}
		if r.Text != "" || len(r.Blob) == 0 {
			return "[resource " + r.URI + "]\n" + r.Text
		}
		return fmt.Sprintf("[resource %s, %s, %s: binary, not shown]", r.URI, mimeOr(r.MIMEType, "binary"), size(len(r.Blob)))
	}
	return fmt.Sprintf("[%T content: not shown]", c)
}

func mimeOr(m, def string) string {
	if m == "" {
		return def
	}
	return m
}

func size(n int) string {
	if n < 1024 {
		return fmt.Sprintf("%d bytes", n)
	}
	return fmt.Sprintf("%d KB", (n+1023)/1024)
}

// capText cuts s at n bytes on a rune boundary, saying how much was cut.
func capText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := strings.ToValidUTF8(s[:n], "")
	return cut + fmt.Sprintf("\n[cut: %d more bytes of the result not shown]", len(s)-len(cut))
}
