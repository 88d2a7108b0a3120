package mcp

import "github.com/godwit/godwit/tool"

// ToolsOf returns the tools of one server while it is ready.
func ToolsOf(m *Manager, server string) []tool.Tool {
	for _, s := range m.servers {
		if s.name == server {
			return s.status().Tools
		}
	}
	return nil
}
