package ast

import (
	"reflect"

	"github.com/gotrace/gotrace/lang/srcpos"
)

// SetSource records src as the file of every position in the tree rooted
// at n: the spans of its nodes and any other position they hold.
func SetSource(n Node, src *srcpos.Source) {
	s := sourceSetter{src: src, seen: map[uintptr]bool{}}
	s.value(reflect.ValueOf(n))
}

type sourceSetter struct {
	src  *srcpos.Source
	seen map[uintptr]bool
}

var posType = reflect.TypeFor[srcpos.Pos]()

func (s *sourceSetter) value(v reflect.Value) {
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() || v.Type() == sourceType || s.seen[v.Pointer()] {
			return
		}
		s.seen[v.Pointer()] = true
		s.value(v.Elem())
	case reflect.Interface:
		if !v.IsNil() {
			s.value(v.Elem())
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			s.value(v.Index(i))
		}
	case reflect.Struct:
		if v.Type() == posType {
			if v.CanSet() {
				v.Field(posSrcField).Set(reflect.ValueOf(s.src))
			}
			return
		}
		for i := range v.NumField() {
			s.value(v.Field(i))
		}
	}
}

// posSrcField is the index of Pos.Src.
var posSrcField = func() int {
	f, _ := posType.FieldByName("Src")
	return f.Index[0]
}()
