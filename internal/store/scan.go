package store

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"reflect"
	"time"
)

// scanRow scans a row whose columns are T's fields in order, a struct
// field's own fields in its place (llm.Usage, an embedded Session): a
// time from Unix milliseconds, a duration from microseconds, a uint64
// from its int64, a slice other than []byte from JSON ("" for none),
// anything else as database/sql scans it. One function for every table's
// rows, so a column added to a struct is added to its SELECT in order.
func scanRow[T any](r scanner) (T, error) {
	var v T
	var dests []any
	var after []func() error
	fields(reflect.ValueOf(&v).Elem(), &dests, &after)
	if err := r.Scan(dests...); err != nil {
		return v, err
	}
	for _, f := range after {
		if err := f(); err != nil {
			return v, err
		}
	}
	return v, nil
}

var (
	timeType     = reflect.TypeFor[time.Time]()
	durationType = reflect.TypeFor[time.Duration]()
)

// fields adds a destination for each of v's fields, and what turns the
// scanned value into the field's where they differ.
func fields(v reflect.Value, dests *[]any, after *[]func() error) {
	for i := range v.NumField() {
		f, name := v.Field(i), v.Type().Field(i).Name
		var n int64
		switch t := f.Type(); {
		case t == timeType:
			*after = append(*after, func() error { f.Set(reflect.ValueOf(fromMS(n))); return nil })
		case t == durationType:
			*after = append(*after, func() error { f.SetInt(n * int64(time.Microsecond)); return nil })
		case t.Kind() == reflect.Uint64:
			*after = append(*after, func() error { f.SetUint(uint64(n)); return nil })
		case t.Kind() == reflect.Struct:
			fields(f, dests, after)
			continue
		case t.Kind() == reflect.Slice && t.Elem().Kind() != reflect.Uint8:
			var text sql.NullString
			*dests = append(*dests, &text)
			*after = append(*after, func() error {
				if text.String == "" {
					return nil
				}
				if err := json.Unmarshal([]byte(text.String), f.Addr().Interface()); err != nil {
					return fmt.Errorf("decode %s: %w", name, err)
				}
				return nil
			})
			continue
		default:
			*dests = append(*dests, f.Addr().Interface())
			continue
		}
		*dests = append(*dests, &n)
	}
}
