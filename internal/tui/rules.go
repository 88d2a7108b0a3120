package tui

import (
	"context"
	"fmt"

	"github.com/godwit/godwit/internal/agent"
)

// rulesCommand runs /rules, /pin Dn and /unpin Dn: what the session
// keeps as the user's standing instructions, and the user's word on one.
func (c *Controller) rulesCommand(ctx context.Context, name string, args []string) (string, error) {
	eng, id, err := c.engine()
	if err != nil {
		return "", err
	}
	if id == "" {
		return "no messages yet: every message you send is kept, and rules shrink last", nil
	}
	if name == "rules" {
		return agent.Rules(ctx, eng.Store, id, "/pin Dn", "/unpin Dn")
	}
	return agent.Pin(ctx, eng.Store, id, args[0], name == "pin")
}

// keptText is the chat's line when a message is kept as a rule.
func keptText(e agent.Event) string {
	return fmt.Sprintf("⚑ kept as a rule, D%d (/rules lists them; /unpin D%d if it is not one)", e.Kept.Seq, e.Kept.Seq)
}
