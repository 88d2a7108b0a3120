// Package mcp borrows tools from MCP servers (the Model Context Protocol)
// through github.com/modelcontextprotocol/go-sdk: it reads the servers
// from godwit's config and from a workspace's .mcp.json, starts them in
// the background, and offers each server tool as a tool.Tool named
// mcp__<server>__<tool>.
//
// A server is a command spoken to over stdio or an HTTP endpoint
// (streamable HTTP, or "sse" for the older transport); values may name
// environment variables as ${VAR} or ${VAR:-default}. A .mcp.json (the
// format other agents read, {"mcpServers": {...}}) comes with the
// repository and can run any command, so its servers start only when the
// user names them (or "*") in Config.Project.
//
// Start returns at once; each server connects in its own goroutine. A
// server that fails to start, or stops later, is reported through
// Options.OnStatus and Statuses, never as an error of Start: godwit goes
// on without it. Tools returns the tools of the servers that are ready;
// the caller takes them into the tool table at the next segment, since
// the table must not change within one. Close stops every server.
//
// A tool whose annotations say readOnlyHint runs without approval; any
// other declares Mutates, so it goes through the same approval rules as
// a write. Results are mapped to text, cut at MaxResult bytes.
//
// .mcp.json is read through the workspace's root. Of godwit's packages it
// imports only llm, tool and internal/tool/workspace.
package mcp
