package fs

import "github.com/godwit/godwit/internal/tool/workspace"

// NewRead returns the file_read tool reading through the OS.
func NewRead(ws *workspace.Workspace) *Read { return newRead(ws, nil) }

// NewList returns the file_list tool.
func NewList(ws *workspace.Workspace) *List { return newList(ws, nil) }
