package store

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"sync"
	"time"
)

// scanRow scans a row whose columns are T's fields in order, a struct
// field's own fields in its place (llm.Usage, an embedded Session): a
// time from Unix milliseconds, a duration from microseconds, a uint64
// from its int64, a json.RawMessage from text (nil for NULL), another
// slice but []byte from JSON ("" for none), anything else (an
// sql.Scanner too) as database/sql scans it. One function for every
// table's rows, so a column added to a struct is added to its SELECT in
// order.
func scanRow[T any](r scanner) (T, error) {
	var v T
	rv := reflect.ValueOf(&v).Elem()
	ops := planOf(rv.Type())
	dests := make([]any, len(ops))
	held := make([]struct {
		n    int64
		text sql.NullString
	}, len(ops))
	for i, op := range ops {
		switch op.kind {
		case asIs:
			dests[i] = rv.FieldByIndex(op.index).Addr().Interface()
		case fromRaw, fromJSON:
			dests[i] = &held[i].text
		default:
			dests[i] = &held[i].n
		}
	}
	if err := r.Scan(dests...); err != nil {
		return v, err
	}
	for i, op := range ops {
		f, h := rv.FieldByIndex(op.index), held[i]
		switch op.kind {
		case fromMillis:
			*f.Addr().Interface().(*time.Time) = fromMS(h.n)
		case fromMicros:
			f.SetInt(h.n * int64(time.Microsecond))
		case fromInt64:
			f.SetUint(uint64(h.n))
		case fromRaw:
			if h.text.Valid {
				f.SetBytes([]byte(h.text.String))
			}
		case fromJSON:
			if h.text.String == "" {
				continue
			}
			if err := json.Unmarshal([]byte(h.text.String), f.Addr().Interface()); err != nil {
				return v, fmt.Errorf("decode %s: %w", op.name, err)
			}
		}
	}
	return v, nil
}

// How scanRow turns a column into a field.
const (
	asIs = iota
	fromMillis
	fromMicros
	fromInt64
	fromRaw
	fromJSON
)

type fieldOp struct {
	index []int
	kind  int
	name  string
}

var (
	plans        sync.Map // reflect.Type -> []fieldOp
	timeType     = reflect.TypeFor[time.Time]()
	durationType = reflect.TypeFor[time.Duration]()
	rawType      = reflect.TypeFor[json.RawMessage]()
	sqlScanner   = reflect.TypeFor[sql.Scanner]()
)

// planOf lists t's columns, worked out once per type.
func planOf(t reflect.Type) []fieldOp {
	if p, ok := plans.Load(t); ok {
		return p.([]fieldOp)
	}
	var ops []fieldOp
	var walk func(t reflect.Type, index []int)
	walk = func(t reflect.Type, index []int) {
		for i := range t.NumField() {
			sf := t.Field(i)
			op := fieldOp{index: append(slices.Clip(index), i), name: sf.Name}
			switch ft := sf.Type; {
			case ft == timeType:
				op.kind = fromMillis
			case ft == durationType:
				op.kind = fromMicros
			case ft.Kind() == reflect.Uint64:
				op.kind = fromInt64
			case ft == rawType:
				op.kind = fromRaw
			case ft.Kind() == reflect.Struct && !reflect.PointerTo(ft).Implements(sqlScanner):
				walk(ft, op.index)
				continue
			case ft.Kind() == reflect.Slice && ft.Elem().Kind() != reflect.Uint8:
				op.kind = fromJSON
			}
			ops = append(ops, op)
		}
	}
	walk(t, nil)
	plans.Store(t, ops)
	return ops
}
