package cli

import "bytes"

// fakeStreams returns streams backed by buffers, none a terminal.
func fakeStreams() (ios *IOStreams, in, out, errOut *bytes.Buffer) {
	in, out, errOut = new(bytes.Buffer), new(bytes.Buffer), new(bytes.Buffer)
	return &IOStreams{In: in, Out: out, ErrOut: errOut}, in, out, errOut
}
