package tool_test

import (
	"strings"
	"testing"

	"github.com/godwit/godwit/llm"
	"github.com/godwit/godwit/tool"
)

func TestRegistryOffer(t *testing.T) {
	mk := func(name string) tool.Tool { return &tool.Func{ToolSpec: llm.ToolSpec{Name: name}} }
	r, err := tool.NewRegistry(mk("a"))
	if err != nil {
		t.Fatal(err)
	}
	added := r.Offer(mk("a"), mk("b"), mk(""), mk("c"), mk("b"))
	if strings.Join(added, ",") != "b,c" || strings.Join(r.Names(), ",") != "a,b,c" {
		t.Errorf("Offer added %v; registry %v", added, r.Names())
	}
}
