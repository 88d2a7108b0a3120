package cli

import (
	"bytes"
	"io"
	"os"

	"golang.org/x/term"
)

// IOStreams are a command's standard streams and whether they are
// terminals.
type IOStreams struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer

	InTTY, OutTTY, ErrTTY bool
	// InPiped: stdin is a pipe or a file, so it holds input meant for
	// godwit (`echo ctx | godwit run -p ...`); not when it is a terminal
	// or a device such as /dev/null.
	InPiped bool
}

// System returns the process's streams.
func System() *IOStreams {
	return &IOStreams{
		In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr,
		InTTY:  isTerminal(os.Stdin),
		OutTTY: isTerminal(os.Stdout),
		ErrTTY: isTerminal(os.Stderr),

		InPiped: isPipeOrFile(os.Stdin),
	}
}

func isPipeOrFile(f *os.File) bool {
	st, err := f.Stat()
	if err != nil {
		return false
	}
	m := st.Mode()
	return m&os.ModeNamedPipe != 0 || m.IsRegular()
}

func isTerminal(f *os.File) bool { return term.IsTerminal(int(f.Fd())) }

// TestStreams returns streams backed by buffers, none a terminal.
func TestStreams() (ios *IOStreams, in, out, errOut *bytes.Buffer) {
	in, out, errOut = new(bytes.Buffer), new(bytes.Buffer), new(bytes.Buffer)
	return &IOStreams{In: in, Out: out, ErrOut: errOut}, in, out, errOut
}
