package cli

import (
	"io"
	"os"

	"golang.org/x/term"

	"github.com/godwit/godwit/internal/termsafe"
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

// safeWriter passes what is written through termsafe.Text, so the
// model's and tools' words cannot drive the terminal. Each write is
// sanitised on its own: every escape and C1 byte goes, so a sequence
// split across writes cannot form either.
type safeWriter struct{ w io.Writer }

func (s safeWriter) Write(p []byte) (int, error) {
	if _, err := io.WriteString(s.w, termsafe.Text(string(p))); err != nil {
		return 0, err
	}
	return len(p), nil
}

// shown is w for text a person reads when tty is set, so that a pipe or
// a file (godwit run > answer.md) still gets the answer byte for byte.
func shown(w io.Writer, tty bool) io.Writer {
	if tty {
		return safeWriter{w}
	}
	return w
}
