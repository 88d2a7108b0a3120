package tool

import "context"

type callIDKey struct{}

// WithCallID returns ctx carrying the id of the tool call it runs; the
// Runner sets it for every call, so that a tool can name the call in its
// own records (shell_exec records each command's process group by call).
func WithCallID(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, callIDKey{}, id)
}

// CallIDFrom returns the call id ctx carries, or "".
func CallIDFrom(ctx context.Context) string {
	id, _ := ctx.Value(callIDKey{}).(string)
	return id
}
