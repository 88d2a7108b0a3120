package tool

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"syscall"
)

// Codes the model sees. They are stable: prompts, evals and the inspector
// match on them.
const (
	CodeBadArgs           = "BAD_ARGS"
	CodeUnknownTool       = "UNKNOWN_TOOL"
	CodeDenied            = "DENIED"
	CodeCancelled         = "CANCELLED"
	CodeTimeout           = "TIMEOUT"
	CodeRepeated          = "REPEATED_FAILURE"
	CodeEditNoMatch       = "EDIT_NO_MATCH"
	CodeEditMultipleMatch = "EDIT_MULTIPLE_MATCH"
	CodeBinary            = "BINARY_FILE"
	CodeOutsideWorkspace  = "OUTSIDE_WORKSPACE"
	CodeNotFound          = "ENOENT"
	CodePermission        = "EACCES"
	CodeIsDir             = "EISDIR"
	CodeNotDir            = "ENOTDIR"
	CodeNoSpace           = "ENOSPC"
	CodeExists            = "EEXIST"
	CodeReadOnlyFS        = "EROFS"
	CodeTooLarge          = "EFBIG"
	CodeFailed            = "FAILED"
)

// ToolError is a failure the model can act on: a stable Code, what went
// wrong, and the Remedy, the next step the model should take.
type ToolError struct {
	Code    string
	Message string
	Remedy  string
	Err     error
}

// Errorf returns a *ToolError with a formatted message.
func Errorf(code, remedy, format string, args ...any) *ToolError {
	return &ToolError{Code: code, Message: fmt.Sprintf(format, args...), Remedy: remedy}
}

func (e *ToolError) Error() string {
	if e.Remedy == "" {
		return e.Code + ": " + e.Message
	}
	return e.Code + ": " + e.Message + "\n" + e.Remedy
}

func (e *ToolError) Unwrap() error { return e.Err }

// fatalError marks an error that ends the turn.
type fatalError struct{ err error }

func (f fatalError) Error() string { return f.err.Error() }
func (f fatalError) Unwrap() error { return f.err }

// Fatal wraps err so that the runner ends the turn instead of handing the
// error to the model. Use it only for what the model cannot fix.
func Fatal(err error) error { return fatalError{err} }

// IsFatal reports whether err was marked with Fatal.
func IsFatal(err error) bool {
	var f fatalError
	return errors.As(err, &f)
}

var errnoCodes = []struct {
	errno  syscall.Errno
	code   string
	remedy string
}{
	{syscall.ENOENT, CodeNotFound, "Check the path with file_list or grep; paths are relative to the workspace root."},
	{syscall.EACCES, CodePermission, "The file is not accessible; choose another path or ask the user."},
	{syscall.EPERM, CodePermission, "The operation is not permitted; choose another path or ask the user."},
	{syscall.EISDIR, CodeIsDir, "The path is a directory; use file_list to see its files."},
	{syscall.ENOTDIR, CodeNotDir, "A parent of the path is a file, not a directory; check the path with file_list."},
	{syscall.ENOSPC, CodeNoSpace, "The disk is full; tell the user, do not retry."},
	{syscall.EEXIST, CodeExists, "The path already exists; read it first or choose another."},
	{syscall.EROFS, CodeReadOnlyFS, "The file system is read-only; tell the user."},
	{syscall.EFBIG, CodeTooLarge, "The file is too large; work on a part of it."},
}

// AsToolError converts any error a tool returned into the *ToolError the
// model reads. OS errors map through their errno; a context error becomes
// CANCELLED or TIMEOUT.
func AsToolError(err error) *ToolError {
	var te *ToolError
	if errors.As(err, &te) {
		return te
	}
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return &ToolError{Code: CodeTimeout, Message: err.Error(), Remedy: "Try a narrower request or a longer timeout.", Err: err}
	case errors.Is(err, context.Canceled):
		return &ToolError{Code: CodeCancelled, Message: "cancelled before it finished", Err: err}
	}
	if errors.Is(err, fs.ErrNotExist) {
		// Before the errno table: Windows' ENOTDIR is its
		// ERROR_PATH_NOT_FOUND, a missing folder, not a file in the way.
		return &ToolError{Code: CodeNotFound, Message: describe(err), Remedy: errnoCodes[0].remedy, Err: err}
	}
	var errno syscall.Errno
	if errors.As(err, &errno) {
		for _, m := range errnoCodes {
			if errno == m.errno {
				return &ToolError{Code: m.code, Message: describe(err), Remedy: m.remedy, Err: err}
			}
		}
	}
	switch {
	case errors.Is(err, fs.ErrPermission):
		return &ToolError{Code: CodePermission, Message: describe(err), Remedy: errnoCodes[1].remedy, Err: err}
	case errors.Is(err, fs.ErrExist):
		return &ToolError{Code: CodeExists, Message: describe(err), Remedy: "The path already exists; read it first or choose another.", Err: err}
	}
	return &ToolError{Code: CodeFailed, Message: err.Error(), Err: err}
}

// describe renders a *fs.PathError without Go's "open /abs/path" noise
// being lost: it keeps op and path, which the model needs.
func describe(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return fmt.Sprintf("%s %s: %v", pe.Op, pe.Path, pe.Err)
	}
	return err.Error()
}
