// Package fs provides the file tools the model uses: file_read,
// file_write, file_edit, file_list and grep. Paths go through a
// workspace.Workspace, so every tool refuses paths outside the root; tools
// that write call Options.BeforeWrite first (the snapshot hook of the
// safety layer) and write atomically (temp file and rename). With
// Options.Files set, file_read, file_write and file_edit read and write
// content through it instead (an editor's buffers, over ACP).
//
// Failures the model can fix are *tool.ToolError values with a remedy, or
// OS errors wrapped so that tool.AsToolError maps their errno.
//
// Of godwit's packages it imports only llm, tool, internal/tool/workspace
// and internal/ignore.
package fs
