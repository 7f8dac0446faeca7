package ast

import (
	"reflect"
	"sync"

	"github.com/gotrace/gotrace/lang/srcpos"
)

// Clone returns a deep copy of the tree rooted at n: every node reachable
// from n is copied, and a node reached twice is copied once, so the copy
// shares nothing with n and keeps n's shape. Passes that rewrite a tree
// (macro expansion, the -p pid filter) work on a clone, so the caller's tree
// stays as parsed.
func Clone[N Node](n N) N {
	c := cloner{seen: map[uintptr]reflect.Value{}}
	return c.value(reflect.ValueOf(n)).Interface().(N)
}

type cloner struct {
	// seen maps the address of each pointer already copied to its copy.
	seen map[uintptr]reflect.Value
}

func (c *cloner) value(v reflect.Value) reflect.Value {
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() || v.Type() == sourceType {
			return v // a Source is immutable: positions share it
		}
		if cp, ok := c.seen[v.Pointer()]; ok {
			return cp
		}
		cp := reflect.New(v.Type().Elem())
		c.seen[v.Pointer()] = cp
		cp.Elem().Set(c.value(v.Elem()))
		return cp
	case reflect.Interface:
		if v.IsNil() {
			return v
		}
		cp := reflect.New(v.Type()).Elem()
		cp.Set(c.value(v.Elem()))
		return cp
	case reflect.Slice:
		if v.IsNil() {
			return v
		}
		cp := reflect.MakeSlice(v.Type(), v.Len(), v.Len())
		for i := range v.Len() {
			cp.Index(i).Set(c.value(v.Index(i)))
		}
		return cp
	case reflect.Struct:
		if plain(v.Type()) {
			return v // positions, spans: copied by value
		}
		cp := reflect.New(v.Type()).Elem()
		for i := range v.NumField() {
			cp.Field(i).Set(c.value(v.Field(i)))
		}
		return cp
	case reflect.Map, reflect.Chan, reflect.Func, reflect.UnsafePointer:
		panic("ast.Clone: unsupported field kind " + v.Kind().String() + " in " + v.Type().String())
	}
	return v // strings, numbers, booleans: values
}

// sourceType is *Source, which copies share.
var sourceType = reflect.TypeFor[*srcpos.Source]()

// plainTypes caches plain's answers by type.
var plainTypes sync.Map // reflect.Type → bool

// plain reports whether values of t hold no pointers, interfaces, slices or
// other references (strings and Sources are immutable), so that copying the
// value is a deep copy.
func plain(t reflect.Type) bool {
	if p, ok := plainTypes.Load(t); ok {
		return p.(bool)
	}
	p := true
	switch t.Kind() {
	case reflect.Struct:
		for i := range t.NumField() {
			if !plain(t.Field(i).Type) {
				p = false
				break
			}
		}
	case reflect.Array:
		p = plain(t.Elem())
	case reflect.Pointer:
		p = t == sourceType
	case reflect.Interface, reflect.Slice, reflect.Map, reflect.Chan, reflect.Func, reflect.UnsafePointer:
		p = false
	}
	plainTypes.Store(t, p)
	return p
}
