package wiring

import "errors"

// InputError marks a mistake in what the user gave: a model name, a
// provider, a value of config.yaml. The CLI exits 2 (bad usage) on one,
// as on a bad flag, rather than 1 (the run failed).
type InputError struct{ Err error }

func (e *InputError) Error() string { return e.Err.Error() }
func (e *InputError) Unwrap() error { return e.Err }

func inputError(err error) error {
	if err == nil {
		return nil
	}
	var ie *InputError
	if errors.As(err, &ie) {
		return err
	}
	return &InputError{Err: err}
}
